package io.orderflow.order.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * The table property that makes the service's own re-send of a keyless transition safe ({@code ResendSafety.GUARDED}):
 * once an event that may come without an idempotency key ({@link OrderEvent#requiresKey()} false, which is what
 * OrderResource asks) has applied, no path of the table leads back to a state it applies from. So a re-sent
 * compare-and-set whose first copy committed can only find the order past it, never move it twice. Generated from
 * {@link OrderTransitions}: every keyless event of the table is checked, a new one included, and a new transition
 * back into such a state fails here; the event must then require a key.
 */
class KeylessResendTest {

    /** The table's events that may come without a key. */
    static Stream<OrderEvent> keylessEvents() {
        return OrderTransitions.rules().stream().map(OrderTransitions.Rule::event).distinct()
                .filter(event -> !event.requiresKey());
    }

    @Test
    void shouldFindTheKeylessEventsInTheTable() {
        assertEquals(List.of(OrderEvent.SHIP, OrderEvent.DELIVER, OrderEvent.CANCEL), keylessEvents().toList(),
                "the events a client may send without a key; a change here is checked by the test below");
    }

    @ParameterizedTest
    @MethodSource("keylessEvents")
    void shouldNeverLeadBackToWhereAKeylessEventAppliesOnceItApplied(OrderEvent event) {
        Set<OrderStatus> sources = OrderTransitions.sourcesOf(event);
        for (OrderStatus from : sources) {
            OrderStatus to = OrderTransitions.next(from, event).orElseThrow();
            Set<OrderStatus> reachable = reachableFrom(to);
            reachable.retainAll(sources);
            assertEquals(Set.of(), reachable, event + " from " + from + " to " + to + " can come back to " + reachable);
        }
    }

    @Test
    void shouldShowWhyPayRequiresAKey() {
        // PAY → PAYMENT_FAILED → CREATED takes PAY again: only its dedup record tells a re-send from a new PAY
        assertTrue(OrderEvent.PAY.requiresKey());
        assertTrue(reachableFrom(OrderStatus.PAYMENT_PENDING).contains(OrderStatus.CREATED));
    }

    private static Set<OrderStatus> reachableFrom(OrderStatus start) {
        Set<OrderStatus> seen = EnumSet.of(start);
        Deque<OrderStatus> next = new ArrayDeque<>(seen);
        while (!next.isEmpty()) {
            OrderStatus s = next.pop();
            for (OrderEvent e : OrderTransitions.allowedEvents(s)) {
                OrderStatus t = OrderTransitions.next(s, e).orElseThrow();
                if (seen.add(t)) {
                    next.push(t);
                }
            }
        }
        return seen;
    }
}
