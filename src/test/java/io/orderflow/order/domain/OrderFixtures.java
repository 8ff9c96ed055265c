package io.orderflow.order.domain;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Plain-Java orders and histories for the domain tests. */
final class OrderFixtures {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private OrderFixtures() {
    }

    static Order created() {
        return Order.create(UUID.randomUUID(), "cust-1", "EUR", List.of(new LineItem("SKU", 2, 500)), T0);
    }

    static Order inStatus(OrderStatus status) {
        Order o = created();
        return new Order(o.id(), o.customerId(), status, 3, o.currency(), o.amount(), o.items(), null, null, null,
                o.createdAt(), o.updatedAt());
    }

    static EventDetails detailsFor(OrderEvent event) {
        return switch (event) {
            case PAY -> new EventDetails.Pay("mockpay");
            case SHIP -> new EventDetails.Ship("DHL", "JD1");
            case CANCEL -> new EventDetails.Cancel("changed my mind");
            case PAYMENT_SUCCEEDED, PAYMENT_FAILED, REFUND_SUCCEEDED, REFUND_COMPLETED ->
                    new EventDetails.ProviderReport("mockpay", "txn-1", 1000, "EUR");
            case DELIVER -> new EventDetails.None();
        };
    }

    /** The history of applying {@code events} in order to a new order (each must be legal). */
    static List<Transition> history(OrderEvent... events) {
        List<Transition> history = new ArrayList<>();
        Order order = created();
        for (OrderEvent event : events) {
            Order next = order.apply(event, detailsFor(event), T0.plusSeconds(history.size() + 1));
            history.add(new Transition((int) next.version(), event, order.status(), next.status(), next.updatedAt(),
                    "test", "tester", null, detailsFor(event)));
            order = next;
        }
        return history;
    }

    /** The order after applying {@code events} in order to a new order (each must be legal). */
    static Order orderAfter(OrderEvent... events) {
        Order order = created();
        for (int i = 0; i < events.length; i++) {
            order = order.apply(events[i], detailsFor(events[i]), T0.plusSeconds(i + 1));
        }
        return order;
    }

    static OrderStatus statusAfter(List<Transition> history) {
        return history.isEmpty() ? OrderStatus.CREATED : history.get(history.size() - 1).to();
    }
}
