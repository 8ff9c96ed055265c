package io.orderflow.idempotency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.common.Reply;
import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The replica's memory of running requests is bounded: beyond its count or byte budget a request skips the
 * shortcut (and goes through the layers, as it would on another replica) instead of growing the heap. A repeat
 * is judged by the answer the first copy stores, whatever its body.
 */
class RunningRequestsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final BiFunction<String, Reply, Reply> JOIN = (fingerprint, reply) -> reply.replayed();

    private static KeyClaim claim(String key, String fingerprint) {
        Instant now = Instant.now();
        return new KeyClaim("customer:c POST /orders ", key, fingerprint, RetentionTier.ORDERS, now,
                now.plusSeconds(60), UUID.randomUUID());
    }

    private static Reply reply(int bytes) {
        return new Reply(201, "application/json", Map.of(), new byte[bytes]);
    }

    @Test
    void shouldNotHoldMoreRequestsThanItsCountCap() {
        InFlightRequests running = new InFlightRequests(Duration.ZERO, Duration.ZERO, 1, 1 << 20);
        AtomicInteger works = new AtomicInteger();
        CompletableFuture<Reply> never = new CompletableFuture<>();
        running.runOrJoin(claim("a", "f"), () -> Uni.createFrom().completionStage(never), JOIN, WAIT)
                .subscribe().with(ignored -> { });
        CompletableFuture<Reply> second = new CompletableFuture<>();
        running.runOrJoin(claim("b", "f"), () -> {
            works.incrementAndGet();
            return Uni.createFrom().completionStage(second);
        }, JOIN, WAIT).subscribe().with(ignored -> { });
        // a repeat of b finds no running copy to join (b was not held): it does the work itself
        Reply repeat = running.runOrJoin(claim("b", "f"), () -> {
            works.incrementAndGet();
            return Uni.createFrom().item(reply(1));
        }, JOIN, WAIT).await().atMost(WAIT);
        assertEquals(2, works.get());
        assertEquals(null, repeat.headers().get(Reply.REPLAYED));
    }

    @Test
    void shouldNotLetAnAnswerLingerBeyondItsByteBudget() {
        long budget = InFlightRequests.ENTRY_BYTES + 1000;
        InFlightRequests running = new InFlightRequests(Duration.ofHours(1), Duration.ofHours(1), 100, budget);
        AtomicInteger works = new AtomicInteger();
        running.runOrJoin(claim("big", "f"), () -> {
            works.incrementAndGet();
            return Uni.createFrom().item(reply(1000));
        }, JOIN, WAIT).await().atMost(WAIT);
        running.runOrJoin(claim("big", "f"), () -> {
            works.incrementAndGet();
            return Uni.createFrom().item(reply(1000));
        }, JOIN, WAIT).await().atMost(WAIT);
        assertEquals(2, works.get(), "a 1000-byte answer with its entry does not fit the budget, so it was not kept");

        running.runOrJoin(claim("small", "f"), () -> Uni.createFrom().item(reply(5)), JOIN, WAIT)
                .await().atMost(WAIT);
        Reply replayed = running.runOrJoin(claim("small", "f"), () -> {
            works.incrementAndGet();
            return Uni.createFrom().item(reply(5));
        }, JOIN, WAIT).await().atMost(WAIT);
        assertEquals("true", replayed.headers().get(Reply.REPLAYED), "a 5-byte answer lingers and is replayed");
        assertEquals(2, works.get());
    }

    @Test
    void shouldKeepLingeringAnswersWithinTheBudgetWhateverHowManyKeysArrive() {
        long budget = 50L * (InFlightRequests.ENTRY_BYTES + 200);
        InFlightRequests running = new InFlightRequests(Duration.ofHours(1), Duration.ofHours(1), 100, budget);
        for (int i = 0; i < 1000; i++) {
            running.runOrJoin(claim("flood-" + i, "f"), () -> Uni.createFrom().item(reply(10)), JOIN, WAIT)
                    .await().atMost(WAIT);
        }
        long held = running.held();
        // each weighs at least its body and the entry around it
        assertTrue(held > 0 && held * (InFlightRequests.ENTRY_BYTES + 10) <= budget, "lingering answers held: " + held);
    }

    @Test
    void shouldForgetAnAnswerOnceItsLingerIsOver() throws InterruptedException {
        InFlightRequests running = new InFlightRequests(Duration.ofMillis(50), Duration.ofMillis(50), 100, 1 << 20);
        AtomicInteger works = new AtomicInteger();
        Supplier<Uni<Reply>> work = () -> {
            works.incrementAndGet();
            return Uni.createFrom().item(reply(3));
        };
        running.runOrJoin(claim("k", "f"), work, JOIN, WAIT).await().atMost(WAIT);
        Thread.sleep(200);
        Reply later = running.runOrJoin(claim("k", "f"), work, JOIN, WAIT).await().atMost(WAIT);
        assertEquals(2, works.get(), "past the linger the repeat goes through the layers itself");
        assertEquals(null, later.headers().get(Reply.REPLAYED));
    }

    @Test
    void shouldKeepTheAnswerToARepeatLongerThanAFirstAnswer() throws InterruptedException {
        InFlightRequests running = new InFlightRequests(Duration.ofMillis(50), Duration.ofHours(1), 100, 1 << 20);
        AtomicInteger works = new AtomicInteger();
        running.runOrJoin(claim("new", "f"), () -> {
            works.incrementAndGet();
            return Uni.createFrom().item(reply(3));
        }, JOIN, WAIT).await().atMost(WAIT);
        KeyClaim askedAgain = claim("asked-again", "f");
        running.runOrJoin(askedAgain, () -> {
            works.incrementAndGet();
            askedAgain.markAnsweredBefore(); // as the gate does when Redis or PostgreSQL replays the stored answer
            return Uni.createFrom().item(reply(3).replayed());
        }, JOIN, WAIT).await().atMost(WAIT);
        Thread.sleep(200);
        Supplier<Uni<Reply>> again = () -> {
            works.incrementAndGet();
            return Uni.createFrom().item(reply(3));
        };
        running.runOrJoin(claim("new", "f"), again, JOIN, WAIT).await().atMost(WAIT);
        assertEquals(3, works.get(), "a first answer is gone after its linger");
        Reply fromMemory = running.runOrJoin(claim("asked-again", "f"), again, JOIN, WAIT).await().atMost(WAIT);
        assertEquals(3, works.get(), "a repeat's answer stays for the replay linger");
        assertEquals("true", fromMemory.headers().get(Reply.REPLAYED));
    }

    @Test
    void shouldKeepANewKeysDuplicateVerdictNoLongerThanAFirstAnswerThoughItIsMarkedReplayed()
            throws InterruptedException {
        InFlightRequests running = new InFlightRequests(Duration.ofMillis(50), Duration.ofHours(1), 100, 1 << 20);
        AtomicInteger works = new AtomicInteger();
        // the state machine's duplicate: the order had already shipped, the key is new (nothing stored replayed it)
        Supplier<Uni<Reply>> duplicate = () -> {
            works.incrementAndGet();
            return Uni.createFrom().item(reply(3).replayed());
        };
        running.runOrJoin(claim("new-key", "f"), duplicate, JOIN, WAIT).await().atMost(WAIT);
        Thread.sleep(200);
        running.runOrJoin(claim("new-key", "f"), duplicate, JOIN, WAIT).await().atMost(WAIT);
        assertEquals(2, works.get(), "gone after the first-answer linger, not kept for the replay linger");
    }

    @Test
    void shouldNotKeepAnAnswerNoStoreMayKeepAfterItsRequest() {
        InFlightRequests running = new InFlightRequests(Duration.ofHours(1), Duration.ofHours(1), 100, 1 << 20);
        AtomicInteger works = new AtomicInteger();
        Supplier<Uni<Reply>> secret = () -> {
            works.incrementAndGet();
            return Uni.createFrom().item(reply(3).withHeader("Cache-Control", "no-store"));
        };
        running.runOrJoin(claim("pay", "f"), secret, JOIN, WAIT).await().atMost(WAIT);
        running.runOrJoin(claim("pay", "f"), secret, JOIN, WAIT).await().atMost(WAIT);
        assertEquals(2, works.get(), "the repeat was rendered again, not answered from memory");
        assertEquals(0, running.held());
    }

    @Test
    void shouldJudgeARepeatWithAnotherBodyByTheFirstCopysAnswerNotByItsOwnGuess() {
        InFlightRequests running = new InFlightRequests(Duration.ZERO, Duration.ZERO, 100, 1 << 20);
        CompletableFuture<Reply> firstAnswer = new CompletableFuture<>();
        running.runOrJoin(claim("k", "first"), () -> Uni.createFrom().completionStage(firstAnswer), JOIN, WAIT)
                .subscribe().with(ignored -> { });
        AtomicInteger works = new AtomicInteger();
        CompletableFuture<String> judgedAgainst = new CompletableFuture<>();
        running.runOrJoin(claim("k", "second"), () -> {
            works.incrementAndGet();
            return Uni.createFrom().item(reply(1));
        }, (fingerprint, reply) -> {
            judgedAgainst.complete(fingerprint + " " + reply.status());
            return reply;
        }, WAIT).subscribe().with(ignored -> { });
        assertEquals(false, judgedAgainst.isDone(), "the repeat waits for the answer the first copy stores");
        firstAnswer.complete(new Reply(201, "application/json", Map.of(), new byte[1]));
        assertEquals("first 201", judgedAgainst.join());
        assertEquals(0, works.get());
    }

    @Test
    void shouldForgetEveryRequestOnceItAnsweredWhenNothingLingers() {
        InFlightRequests running = new InFlightRequests(Duration.ZERO, Duration.ZERO, 100, 1 << 20);
        for (int i = 0; i < 50; i++) {
            running.runOrJoin(claim("k" + i, "f"), () -> Uni.createFrom().item(reply(3)), JOIN, WAIT)
                    .await().atMost(WAIT);
        }
        running.runOrJoin(claim("failing", "f"), () -> Uni.createFrom().failure(new IllegalStateException("boom")),
                JOIN, WAIT).onFailure().recoverWithNull().await().atMost(WAIT);
        assertEquals(0, running.held());
    }
}
