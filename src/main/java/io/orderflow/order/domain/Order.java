package io.orderflow.order.domain;

import java.time.Instant;
import java.util.Currency;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
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

    /**
     * Present once a provider was chosen. {@code attemptId} is the order's current payment attempt (null for orders
     * paid before attempts were kept).
     */
    public record Payment(String provider, String providerTxnId, Instant paidAt, Instant refundedAt, UUID attemptId,
            long refundedAmount) {

        public Payment(String provider, String providerTxnId, Instant paidAt, Instant refundedAt) {
            this(provider, providerTxnId, paidAt, refundedAt, null);
        }

        public Payment(String provider, String providerTxnId, Instant paidAt, Instant refundedAt, UUID attemptId) {
            this(provider, providerTxnId, paidAt, refundedAt, attemptId, 0);
        }

        static Payment of(Map<OrderField, Object> f) {
            Object refunded = f.get(OrderField.REFUNDED_AMOUNT);
            return f.get(OrderField.PAYMENT_PROVIDER) == null ? null
                    : new Payment((String) f.get(OrderField.PAYMENT_PROVIDER), (String) f.get(OrderField.PAYMENT_TXN_ID),
                            (Instant) f.get(OrderField.PAID_AT), (Instant) f.get(OrderField.REFUNDED_AT),
                            (UUID) f.get(OrderField.PAYMENT_ATTEMPT_ID),
                            refunded == null ? 0 : ((Number) refunded).longValue());
        }
    }

    /** Present once shipped. */
    public record Shipment(String carrier, String trackingNumber, Instant shippedAt, Instant deliveredAt) {
        static Shipment of(Map<OrderField, Object> f) {
            return f.get(OrderField.CARRIER) == null ? null
                    : new Shipment((String) f.get(OrderField.CARRIER), (String) f.get(OrderField.TRACKING_NUMBER),
                            (Instant) f.get(OrderField.SHIPPED_AT), (Instant) f.get(OrderField.DELIVERED_AT));
        }
    }

    /** Present once cancelled. */
    public record Cancellation(String reason, Instant cancelledAt) {
        static Cancellation of(Map<OrderField, Object> f) {
            return f.get(OrderField.CANCELLED_AT) == null ? null
                    : new Cancellation((String) f.get(OrderField.CANCEL_REASON), (Instant) f.get(OrderField.CANCELLED_AT));
        }
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
     * The order after {@code event}: the table's next state, version + 1, and what the event records
     * ({@link EventDetails#changes}). The compare-and-set in the database computes exactly this, from the same table
     * and the same changes.
     *
     * @throws IllegalTransitionException when the table does not take the event from this state
     */
    public Order apply(OrderEvent event, EventDetails details, Instant at) {
        OrderStatus to = OrderTransitions.next(status, event)
                .filter(next -> OrderTransitions.allows(this, event, details))
                .orElseThrow(() -> new IllegalTransitionException(status, event));
        return with(to, version + 1, at, details.changes(event, at));
    }

    /** The value this order holds for {@code field}, as the database row would (null when absent). */
    public Object valueOf(OrderField field) {
        Payment p = payment;
        Shipment s = shipment;
        Cancellation c = cancellation;
        return switch (field) {
            case PAYMENT_PROVIDER -> p == null ? null : p.provider();
            case PAYMENT_TXN_ID -> p == null ? null : p.providerTxnId();
            case PAYMENT_ATTEMPT_ID -> p == null ? null : p.attemptId();
            case PAID_AT -> p == null ? null : p.paidAt();
            case REFUNDED_AT -> p == null ? null : p.refundedAt();
            case REFUNDED_AMOUNT -> p == null ? null : p.refundedAmount();
            case CARRIER -> s == null ? null : s.carrier();
            case TRACKING_NUMBER -> s == null ? null : s.trackingNumber();
            case SHIPPED_AT -> s == null ? null : s.shippedAt();
            case DELIVERED_AT -> s == null ? null : s.deliveredAt();
            case CANCEL_REASON -> c == null ? null : c.reason();
            case CANCELLED_AT -> c == null ? null : c.cancelledAt();
        };
    }

    /** This order with {@code changes} applied, its parts present exactly when the row's would be. */
    private Order with(OrderStatus status, long version, Instant updatedAt, Map<OrderField, Object> changes) {
        Map<OrderField, Object> f = new EnumMap<>(OrderField.class);
        if (payment != null) {
            f.put(OrderField.PAYMENT_PROVIDER, payment.provider());
            f.put(OrderField.PAYMENT_TXN_ID, payment.providerTxnId());
            f.put(OrderField.PAID_AT, payment.paidAt());
            f.put(OrderField.REFUNDED_AT, payment.refundedAt());
            f.put(OrderField.PAYMENT_ATTEMPT_ID, payment.attemptId());
            f.put(OrderField.REFUNDED_AMOUNT, payment.refundedAmount());
        }
        if (shipment != null) {
            f.put(OrderField.CARRIER, shipment.carrier());
            f.put(OrderField.TRACKING_NUMBER, shipment.trackingNumber());
            f.put(OrderField.SHIPPED_AT, shipment.shippedAt());
            f.put(OrderField.DELIVERED_AT, shipment.deliveredAt());
        }
        if (cancellation != null) {
            f.put(OrderField.CANCEL_REASON, cancellation.reason());
            f.put(OrderField.CANCELLED_AT, cancellation.cancelledAt());
        }
        f.putAll(changes);
        return new Order(id, customerId, status, version, currency, amount, items, Payment.of(f), Shipment.of(f),
                Cancellation.of(f), createdAt, updatedAt);
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
