package io.orderflow.order.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * The table property that makes the service's own re-send of a keyless transition safe ({@code Resend.GUARDED}):
 * once an event a client may send without an Idempotency-Key (SHIP, DELIVER, CANCEL: OrderResource requires a key
 * only for POST /orders and PAY) has applied, no path of the table leads back to a state it applies from. So a
 * re-sent compare-and-set whose first copy committed can only find the order past it, never move it twice. Generated
 * from {@link OrderTransitions}: a new transition back into such a state fails here, and the event must then require
 * a key.
 */
class KeylessResendTest {

    @ParameterizedTest
    @EnumSource(value = OrderEvent.class, names = { "SHIP", "DELIVER", "CANCEL" })
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
