package io.orderflow.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The sequencer's decisions, without a database: the order of positions, what is held back, the next horizon. */
class SequencerRoundTest {

    private static final UUID A = UUID.fromString("00000000-0000-0000-0000-00000000000a");
    private static final UUID B = UUID.fromString("00000000-0000-0000-0000-00000000000b");

    @Test
    void shouldPutAnOrdersEventsInTheirOrderWhenTheLaterOneHasTheSmallerTransactionId() {
        SequencerRound.Event a1 = transition(A, 1, 100);
        SequencerRound.Event a2 = transition(A, 2, 90);
        SequencerRound.Event b1 = transition(B, 1, 95);
        SequencerRound round = new SequencerRound(7, 50, 120, List.of(a2, b1, a1), 10);
        SequencerRound.Decision decision = round.decide(List.of());
        assertEquals(List.of(b1, a1, a2), decision.events(), "b1 at 95, then A's two at 100, a1 first");
        assertEquals(120, decision.horizon(), "every transaction below the oldest running one has ended");
    }

    @Test
    void shouldHoldBackAnEventWhoseEarlierOneTheRoundLeftOut() {
        SequencerRound.Event b1 = transition(B, 1, 10);
        SequencerRound.Event a2 = transition(A, 2, 20);
        SequencerRound.Event a1 = transition(A, 1, 30);
        SequencerRound round = new SequencerRound(7, 5, 100, List.of(b1, a2, a1), 2);
        assertEquals(true, round.truncated());
        assertEquals(30, round.cut());
        SequencerRound.Decision decision = round.decide(List.of(a1));
        assertEquals(List.of(b1), decision.events(), "a2 waits for a1");
        assertEquals(20, decision.horizon(), "below the held event, so that the next round sees it again");
    }

    @Test
    void shouldKeepItsHorizonBelowTheCutAndTheOldestRunningTransaction() {
        SequencerRound.Event b1 = transition(B, 1, 10);
        SequencerRound.Event a1 = transition(A, 1, 20);
        SequencerRound.Event a2 = transition(A, 2, 40);
        SequencerRound truncated = new SequencerRound(0, 5, 15, List.of(b1, a1, a2), 2);
        assertEquals(15, truncated.decide(List.of(a2)).horizon(), "15 is still running");
        SequencerRound whole = new SequencerRound(0, 30, 25, List.of(a2), 5);
        assertEquals(30, whole.decide(List.of()).horizon(), "a horizon never goes back");
    }

    @Test
    void shouldPutASideEventAfterTheTransitionItFollows() {
        SequencerRound.Event refund = new SequencerRound.Event(10, A, 's', 77, 3, 2, Instant.EPOCH);
        SequencerRound.Event third = transition(A, 3, 20);
        SequencerRound.Event fourth = transition(A, 4, 5);
        SequencerRound round = new SequencerRound(0, 0, 100, List.of(fourth, refund, third), 10);
        assertEquals(List.of(third, refund, fourth), round.decide(List.of()).events());
    }

    private static SequencerRound.Event transition(UUID order, long seq, long xid) {
        return new SequencerRound.Event(xid, order, 't', seq, seq, 1, Instant.EPOCH);
    }
}
