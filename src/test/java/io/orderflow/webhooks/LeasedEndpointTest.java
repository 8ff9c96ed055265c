package io.orderflow.webhooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.events.FeedEvent;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** One endpoint's delivery rules, without a network: order per order, the cursor, holding behind a failure, pausing. */
class LeasedEndpointTest {

    private static final UUID A = UUID.fromString("00000000-0000-0000-0000-00000000000a");
    private static final UUID B = UUID.fromString("00000000-0000-0000-0000-00000000000b");
    private static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");

    @Test
    void shouldSendOneEventOfAnOrderAtATimeAndTheNextWhenItWentThrough() {
        LeasedEndpoint endpoint = endpoint(List.of(), 10);
        FeedEvent a1 = event(11, A, "io.orderflow.order.pay");
        FeedEvent b1 = event(12, B, "io.orderflow.order.pay");
        FeedEvent a2 = event(13, A, "io.orderflow.order.ship");
        assertEquals(LeasedEndpoint.Step.SEND, endpoint.take(a1));
        assertEquals(LeasedEndpoint.Step.SEND, endpoint.take(b1));
        assertEquals(LeasedEndpoint.Step.WAIT, endpoint.take(a2), "behind a1, in flight");
        endpoint.settle(12);
        assertEquals(List.of(), endpoint.ended(B, true, 5, null));
        assertEquals(10, endpoint.cursor(), "12 went through, 11 is still out: the cursor waits");
        endpoint.settle(11);
        assertEquals(List.of(a2), endpoint.ended(A, true, 5, null), "a2 goes now");
        assertEquals(12, endpoint.cursor());
        endpoint.settle(13);
        endpoint.ended(A, true, 5, null);
        assertEquals(13, endpoint.cursorToStore());
        assertNull(endpoint.cursorToStore(), "stored once");
    }

    @Test
    void shouldHoldAnOrdersLaterEventsBehindOneThatFailed() {
        LeasedEndpoint endpoint = endpoint(List.of(), 0);
        FeedEvent a1 = event(1, A, "io.orderflow.order.pay");
        FeedEvent a2 = event(2, A, "io.orderflow.order.ship");
        FeedEvent a3 = event(3, A, "io.orderflow.order.deliver");
        endpoint.take(a1);
        endpoint.take(a2);
        endpoint.take(a3);
        assertEquals(List.of(a2, a3), endpoint.ended(A, false, 5, NOW), "both held behind a1's row");
        assertEquals(LeasedEndpoint.Step.HOLD, endpoint.take(event(4, A, "io.orderflow.order.cancel")));
        assertEquals(LeasedEndpoint.Step.SEND, endpoint.take(event(5, B, "io.orderflow.order.pay")));
        endpoint.owedOrders(Set.of());
        assertEquals(LeasedEndpoint.Step.HOLD, endpoint.take(event(6, A, "io.orderflow.order.cancel")),
                "owed since the list was asked for: kept");
        endpoint.refreshingOwed();
        endpoint.owedOrders(Set.of());
        assertEquals(LeasedEndpoint.Step.SEND, endpoint.take(event(7, A, "io.orderflow.order.cancel")),
                "its owed deliveries went out");
    }

    @Test
    void shouldPassOverTypesItDoesNotTakeAndPauseAfterFailuresInARow() {
        LeasedEndpoint endpoint = endpoint(List.of("io.orderflow.order.ship"), 0);
        assertEquals(LeasedEndpoint.Step.PASS, endpoint.take(event(1, A, "io.orderflow.order.pay")));
        assertEquals(1, endpoint.cursor(), "passed over: the cursor moves at once");
        for (int i = 0; i < 3; i++) {
            UUID order = UUID.randomUUID();
            endpoint.take(event(2 + i, order, "io.orderflow.order.ship"));
            endpoint.ended(order, false, 3, NOW.plusSeconds(60));
        }
        assertTrue(endpoint.paused(NOW), "three failures in a row");
        assertFalse(endpoint.wantsMore(8, NOW));
        endpoint.startSending(A);
        endpoint.ended(A, true, 3, null);
        assertFalse(endpoint.paused(NOW), "a retry went through: resumed");
    }

    private static LeasedEndpoint endpoint(List<String> types, long cursor) {
        return new LeasedEndpoint(new WebhookEndpoint(UUID.randomUUID(), "http://127.0.0.1:9/h", types, null,
                "whsec_x", null, null, "enabled", null, NOW), cursor, null);
    }

    private static FeedEvent event(long position, UUID order, String type) {
        return new FeedEvent(position, UUID.randomUUID(), type, order, NOW, "{}", null);
    }
}
