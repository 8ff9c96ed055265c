package io.orderflow.order.domain;

import java.time.Instant;
import java.util.Currency;
import java.util.List;
import java.util.UUID;

/**
 * An order as stored: immutable; every move produces the next version through {@link #apply}. {@code version}
 * counts the transitions applied, so it equals the length of the order's history.
 */
public record Order(UUID id, String customerId, OrderStatus status, long version, String currency, long amount,
        List<LineItem> items, Payment payment, Shipment shipment, Cancellation cancellation, Instant createdAt,
        Instant updatedAt) {

    public static final int MAX_ITEMS = 100;
    public static final int MAX_CUSTOMER_ID_LENGTH = 64;

    public record Payment(String provider, String providerTxnId, Instant paidAt, Instant refundedAt) {
    }

    public record Shipment(String carrier, String trackingNumber, Instant shippedAt, Instant deliveredAt) {
    }

    public record Cancellation(String reason, Instant cancelledAt) {
    }

    public Order {
        items = List.copyOf(items);
    }

    /** A new order in CREATED, its amount the sum of its lines; bad input raises {@link InvalidOrderException}. */
    public static Order create(UUID id, String customerId, String currency, List<LineItem> items, Instant now) {
        InvalidOrderException.require(customerId != null && !customerId.isBlank(), "customerId", "must not be blank");
        InvalidOrderException.require(customerId.length() <= MAX_CUSTOMER_ID_LENGTH, "customerId",
                "must be at most " + MAX_CUSTOMER_ID_LENGTH + " characters");
        InvalidOrderException.require(isIsoCurrency(currency), "currency", "must be an ISO 4217 code such as EUR");
        InvalidOrderException.require(items != null && !items.isEmpty(), "items", "must hold at least one item");
        InvalidOrderException.require(items.size() <= MAX_ITEMS, "items", "must hold at most " + MAX_ITEMS + " items");
        long amount = 0;
        for (LineItem item : items) {
            InvalidOrderException.require(item != null, "items[]", "must not be null");
            try {
                amount = Math.addExact(amount, item.total());
            } catch (ArithmeticException e) {
                throw new InvalidOrderException("items", "the order's total overflows the amount");
            }
        }
        return new Order(id, customerId, OrderStatus.CREATED, 0, currency, amount, items, null, null, null, now, now);
    }

    /**
     * The order after {@code event}: the table's next state, version + 1, and what the event records.
     *
     * @throws IllegalTransitionException when the table does not take the event from this state
     */
    public Order apply(OrderEvent event, EventDetails details, Instant at) {
        OrderStatus to = OrderTransitions.next(status, event)
                .orElseThrow(() -> new IllegalTransitionException(status, event));
        Order moved = new Order(id, customerId, to, version + 1, currency, amount, items, payment, shipment,
                cancellation, createdAt, at);
        return details.recordOn(moved, at);
    }

    Order withPayment(Payment payment) {
        return new Order(id, customerId, status, version, currency, amount, items, payment, shipment, cancellation,
                createdAt, updatedAt);
    }

    Order withShipment(Shipment shipment) {
        return new Order(id, customerId, status, version, currency, amount, items, payment, shipment, cancellation,
                createdAt, updatedAt);
    }

    Order withCancellation(Cancellation cancellation) {
        return new Order(id, customerId, status, version, currency, amount, items, payment, shipment, cancellation,
                createdAt, updatedAt);
    }

    private static boolean isIsoCurrency(String code) {
        if (code == null || !code.matches("[A-Z]{3}")) {
            return false;
        }
        try {
            Currency.getInstance(code);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
