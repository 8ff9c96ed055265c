package io.orderflow.order.domain;

import java.time.Instant;

/**
 * What an event carries besides its name, and what it records on the order it moves. Legality is not decided
 * here (that is {@link OrderTransitions}); these only fill in the payment, shipment or cancellation parts.
 */
public sealed interface EventDetails {

    Order recordOn(Order moved, Instant at);

    /** An event that records nothing but the move (DELIVER records its time on the shipment). */
    record None() implements EventDetails {
        @Override
        public Order recordOn(Order moved, Instant at) {
            if (moved.status() == OrderStatus.DELIVERED && moved.shipment() != null) {
                Order.Shipment s = moved.shipment();
                return moved.withShipment(new Order.Shipment(s.carrier(), s.trackingNumber(), s.shippedAt(), at));
            }
            return moved;
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
        public Order recordOn(Order moved, Instant at) {
            return moved.withPayment(new Order.Payment(provider, null, null, null));
        }
    }

    /** A provider reported the outcome of a payment or a refund. */
    record ProviderReport(String provider, String providerTxnId) implements EventDetails {
        @Override
        public Order recordOn(Order moved, Instant at) {
            Order.Payment p = moved.payment();
            return switch (moved.status()) {
                case REFUNDED -> moved.withPayment(new Order.Payment(p == null ? provider : p.provider(),
                        p == null ? providerTxnId : p.providerTxnId(), p == null ? null : p.paidAt(), at));
                case CREATED -> moved.withPayment(new Order.Payment(provider, null, null, null));
                default -> moved.withPayment(new Order.Payment(provider, providerTxnId, at, null));
            };
        }
    }

    record Ship(String carrier, String trackingNumber) implements EventDetails {
        public static final int MAX_LENGTH = 128;

        public Ship {
            InvalidOrderException.require(carrier != null && !carrier.isBlank(), "carrier", "must not be blank");
            InvalidOrderException.require(trackingNumber != null && !trackingNumber.isBlank(), "trackingNumber",
                    "must not be blank");
            InvalidOrderException.require(carrier.length() <= MAX_LENGTH && trackingNumber.length() <= MAX_LENGTH,
                    "carrier", "carrier and trackingNumber must be at most " + MAX_LENGTH + " characters");
        }

        @Override
        public Order recordOn(Order moved, Instant at) {
            return moved.withShipment(new Order.Shipment(carrier, trackingNumber, at, null));
        }
    }

    record Cancel(String reason) implements EventDetails {
        public static final int MAX_LENGTH = 500;

        public Cancel {
            InvalidOrderException.require(reason == null || reason.length() <= MAX_LENGTH, "reason",
                    "must be at most " + MAX_LENGTH + " characters");
        }

        @Override
        public Order recordOn(Order moved, Instant at) {
            return moved.withCancellation(new Order.Cancellation(reason, at));
        }
    }
}
