package io.orderflow.order.domain;

import static io.orderflow.order.domain.OrderField.*;

import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * What an event carries besides its name: what it records on the order it moves ({@link #changes}), and what makes
 * a repeat of it the same request ({@link #sameRequestAs}). Legality is not decided here (that is
 * {@link OrderTransitions}).
 */
public sealed interface EventDetails {

    /**
     * The fields the event sets (a null value clears one) when it moves an order at {@code at}. They never depend on
     * the order's previous state, so the compare-and-set can apply them without reading the order first.
     */
    Map<OrderField, Object> changes(OrderEvent event, Instant at);

    /**
     * Whether a repeat carrying these details asks for what {@code applied} (the details the event was applied
     * with; null for transitions recorded before details were kept) asked for. A repeat that asks for something else
     * is a conflict, not a duplicate: its caller must not believe its details were stored.
     */
    boolean sameRequestAs(EventDetails applied);

    /** Whether the event agrees with the order's amount and currency (only provider reports carry an amount). */
    default boolean agreesWithAmountOf(Order order) {
        return true;
    }

    /**
     * Fields the order must hold (these values, null included) for {@code event} to be about it at all: a failure
     * is about the order's current payment attempt, a refund about the capture that paid it. The compare-and-set
     * checks them in the same statement; an order that does not hold them is not moved, whatever its status.
     */
    default Map<OrderField, Object> requires(OrderEvent event) {
        return Map.of();
    }

    /** Whether {@code order} holds what {@link #requires} names for {@code event}. */
    default boolean concerns(Order order, OrderEvent event) {
        return requires(event).entrySet().stream()
                .allMatch(required -> Objects.equals(order.valueOf(required.getKey()), required.getValue()));
    }

    /** DELIVER: records its time on the shipment. */
    record None() implements EventDetails {
        @Override
        public Map<OrderField, Object> changes(OrderEvent event, Instant at) {
            return event == OrderEvent.DELIVER ? fields(DELIVERED_AT, at) : Map.of();
        }

        @Override
        public boolean sameRequestAs(EventDetails applied) {
            return true;
        }
    }

    /** PAY: the customer chose a provider; the money is not captured yet. */
    record Pay(String provider) implements EventDetails {
        public static final int MAX_LENGTH = 64;

        public Pay {
            InvalidOrderException.require(provider != null && !provider.isBlank(), "provider", "must not be blank");
            InvalidOrderException.require(provider.length() <= MAX_LENGTH, "provider",
                    "must be at most " + MAX_LENGTH + " characters");
        }

        @Override
        public Map<OrderField, Object> changes(OrderEvent event, Instant at) {
            return fields(PAYMENT_PROVIDER, provider, PAYMENT_TXN_ID, null, PAID_AT, null, REFUNDED_AT, null);
        }

        /** PAY with the provider the order pays with already is a repeat; with another, a change of method. */
        @Override
        public boolean sameRequestAs(EventDetails applied) {
            return applied == null || applied instanceof Pay other && provider.equals(other.provider());
        }

        /** Whether this PAY names another provider than the one {@code order} is paying with. */
        public boolean changesProviderOf(Order order) {
            return order.payment() == null || !provider.equals(order.payment().provider());
        }
    }

    /**
     * A provider reported the outcome of a payment or a refund, for {@code amount} (minor units) in
     * {@code currency}, about payment attempt {@code attemptId} (null: the order's current one). Provider events are
     * told apart by their own event ids, so any two reports of one event are the same request here.
     */
    record ProviderReport(String provider, String providerTxnId, long amount, String currency, UUID attemptId)
            implements EventDetails {

        public ProviderReport(String provider, String providerTxnId, long amount, String currency) {
            this(provider, providerTxnId, amount, currency, null);
        }

        /**
         * A success pays the order whichever attempt it captured (that attempt becomes the order's); a failure only
         * fails the attempt the order stands on; a refund only refunds the capture that paid the order.
         */
        @Override
        public Map<OrderField, Object> requires(OrderEvent event) {
            return switch (event) {
                case PAYMENT_FAILED -> attemptId == null ? Map.of() : fields(PAYMENT_ATTEMPT_ID, attemptId);
                case REFUND_SUCCEEDED, REFUND_COMPLETED -> fields(PAYMENT_TXN_ID, providerTxnId);
                default -> Map.of();
            };
        }

        @Override
        public Map<OrderField, Object> changes(OrderEvent event, Instant at) {
            return switch (event) {
                case PAYMENT_SUCCEEDED -> attemptId == null
                        ? fields(PAYMENT_PROVIDER, provider, PAYMENT_TXN_ID, providerTxnId, PAID_AT, at, REFUNDED_AT,
                                null)
                        : fields(PAYMENT_PROVIDER, provider, PAYMENT_TXN_ID, providerTxnId, PAID_AT, at, REFUNDED_AT,
                                null, PAYMENT_ATTEMPT_ID, attemptId);
                case REFUND_SUCCEEDED, REFUND_COMPLETED -> fields(REFUNDED_AT, at, REFUNDED_AMOUNT, amount);
                default -> fields(PAYMENT_PROVIDER, provider, PAYMENT_TXN_ID, null, PAID_AT, null, REFUNDED_AT, null);
            };
        }

        @Override
        public boolean sameRequestAs(EventDetails applied) {
            return true;
        }

        @Override
        public boolean agreesWithAmountOf(Order order) {
            return order.amount() == amount && order.currency().equals(currency);
        }
    }

    record Ship(String carrier, String trackingNumber) implements EventDetails {
        public static final int MAX_LENGTH = 128;

        public Ship {
            InvalidOrderException.require(carrier != null && !carrier.isBlank(), "carrier", "must not be blank");
            InvalidOrderException.require(trackingNumber != null && !trackingNumber.isBlank(), "trackingNumber",
                    "must not be blank");
            InvalidOrderException.require(carrier.length() <= MAX_LENGTH, "carrier",
                    "must be at most " + MAX_LENGTH + " characters");
            InvalidOrderException.require(trackingNumber.length() <= MAX_LENGTH, "trackingNumber",
                    "must be at most " + MAX_LENGTH + " characters");
        }

        @Override
        public Map<OrderField, Object> changes(OrderEvent event, Instant at) {
            return fields(CARRIER, carrier, TRACKING_NUMBER, trackingNumber, SHIPPED_AT, at, DELIVERED_AT, null);
        }

        @Override
        public boolean sameRequestAs(EventDetails applied) {
            return applied == null || equals(applied);
        }
    }

    /** CANCEL, with an optional reason; a repeat without a reason asks for no particular one. */
    record Cancel(String reason) implements EventDetails {
        public static final int MAX_LENGTH = 500;

        public Cancel {
            InvalidOrderException.require(reason == null || reason.length() <= MAX_LENGTH, "reason",
                    "must be at most " + MAX_LENGTH + " characters");
        }

        @Override
        public Map<OrderField, Object> changes(OrderEvent event, Instant at) {
            return fields(CANCEL_REASON, reason, CANCELLED_AT, at);
        }

        @Override
        public boolean sameRequestAs(EventDetails applied) {
            return reason == null || applied == null
                    || applied instanceof Cancel other && Objects.equals(reason, other.reason());
        }
    }

    /** Field, value, field, value...; values may be null (the field is cleared). */
    private static Map<OrderField, Object> fields(Object... pairs) {
        Map<OrderField, Object> changes = new EnumMap<>(OrderField.class);
        for (int i = 0; i < pairs.length; i += 2) {
            changes.put((OrderField) pairs[i], pairs[i + 1]);
        }
        return changes;
    }
}
