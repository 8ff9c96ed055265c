package io.orderflow.order.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every (state, event) pair, generated from the enums, against the lifecycle as the product specifies it. */
class OrderTransitionsTest {

    /** The specification, as written in the product's issue: "EVENT FROM>TO". */
    private static final List<String> SPEC = List.of(
            "PAY CREATED>PAYMENT_PENDING", "PAY PAYMENT_PENDING>PAYMENT_PENDING",
            "PAYMENT_SUCCEEDED CREATED>PAID", "PAYMENT_SUCCEEDED PAYMENT_PENDING>PAID",
            "PAYMENT_SUCCEEDED CANCELLED>REFUND_PENDING",
            "PAYMENT_FAILED PAYMENT_PENDING>CREATED",
            "SHIP PAID>SHIPPED",
            "DELIVER SHIPPED>DELIVERED",
            "CANCEL CREATED>CANCELLED", "CANCEL PAYMENT_PENDING>CANCELLED",
            "CANCEL PAID>REFUND_PENDING",
            "REFUND_SUCCEEDED REFUND_PENDING>REFUNDED",
            // issue 33: refunds issued one by one that have given back the whole capture
            "REFUND_COMPLETED PAID>REFUNDED", "REFUND_COMPLETED SHIPPED>REFUNDED",
            "REFUND_COMPLETED DELIVERED>REFUNDED");

    static Stream<Arguments> everyStateAndEvent() {
        List<Arguments> pairs = new ArrayList<>();
        for (OrderStatus from : OrderStatus.values()) {
            for (OrderEvent event : OrderEvent.values()) {
                pairs.add(Arguments.of(from, event, specified(from, event)));
            }
        }
        return pairs.stream();
    }

    @ParameterizedTest(name = "{1} from {0} goes to {2}")
    @MethodSource("everyStateAndEvent")
    void shouldFollowTheSpecifiedTableForEveryStateAndEvent(OrderStatus from, OrderEvent event,
            Optional<OrderStatus> expected) {
        assertEquals(expected, OrderTransitions.next(from, event));
        assertEquals(expected.isPresent(), OrderTransitions.allowedEvents(from).contains(event));
        assertEquals(expected.isPresent(), OrderTransitions.sourcesOf(event).contains(from));
    }

    @ParameterizedTest(name = "{1} from {0}")
    @MethodSource("everyStateAndEvent")
    void shouldMoveAnOrderOnlyWhereTheTableAllows(OrderStatus from, OrderEvent event,
            Optional<OrderStatus> expected) {
        Order order = OrderFixtures.inStatus(from);
        if (expected.isPresent()) {
            Order next = order.apply(event, OrderFixtures.detailsFor(event), order.updatedAt().plusSeconds(1));
            assertEquals(expected.get(), next.status());
            assertEquals(order.version() + 1, next.version());
        } else {
            IllegalTransitionException e = Assertions.assertThrows(
                    IllegalTransitionException.class,
                    () -> order.apply(event, OrderFixtures.detailsFor(event), order.updatedAt()));
            assertEquals(from, e.current());
            assertEquals(OrderTransitions.allowedEvents(from), e.allowedEvents());
        }
    }

    @Test
    void shouldTakePayWhilePendingOnlyAsAChangeOfProvider() {
        Order pending = OrderFixtures.inStatus(OrderStatus.CREATED)
                .apply(OrderEvent.PAY, new EventDetails.Pay("mockpay"), OrderFixtures.T0.plusSeconds(1));
        Order switched = pending.apply(OrderEvent.PAY, new EventDetails.Pay("stripe"),
                OrderFixtures.T0.plusSeconds(2));
        assertEquals(OrderStatus.PAYMENT_PENDING, switched.status());
        assertEquals("stripe", switched.payment().provider());
        assertThrows(IllegalTransitionException.class, () -> switched.apply(OrderEvent.PAY,
                new EventDetails.Pay("stripe"), OrderFixtures.T0.plusSeconds(3)));
        assertEquals(OrderTransitions.Condition.PROVIDER_CHANGES,
                OrderTransitions.condition(OrderStatus.PAYMENT_PENDING, OrderEvent.PAY));
        assertEquals(OrderTransitions.Condition.ALWAYS, OrderTransitions.condition(OrderStatus.CREATED, OrderEvent.PAY));
    }

    private static Optional<OrderStatus> specified(OrderStatus from, OrderEvent event) {
        for (String row : SPEC) {
            String[] parts = row.split("[ >]");
            Map.Entry<OrderStatus, OrderStatus> move = Map.entry(OrderStatus.valueOf(parts[1]),
                    OrderStatus.valueOf(parts[2]));
            if (OrderEvent.valueOf(parts[0]) == event && move.getKey() == from) {
                return Optional.of(move.getValue());
            }
        }
        return Optional.empty();
    }
}
