package io.orderflow.payment;

import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.order.domain.OrderEvent;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;

/** A provider's notification, as posted to {@code /payments/{provider}/callbacks}. */
public record ProviderEvent(String eventId, String type, String orderId, Long amount, String currency,
        String providerTxnId, Instant occurredAt) {

    private static final Set<String> TYPES = Set.of(OrderEvent.PAYMENT_SUCCEEDED.name(),
            OrderEvent.PAYMENT_FAILED.name(), OrderEvent.REFUND_SUCCEEDED.name());
    private static final int MAX_ID = 255;

    /** Checks the fields a valid notification must have; answers 400 otherwise. */
    public ProviderEvent validated() {
        require(isValidId(eventId), "eventId");
        require(type != null && TYPES.contains(type), "type (PAYMENT_SUCCEEDED, PAYMENT_FAILED or REFUND_SUCCEEDED)");
        require(orderId != null && isUuid(orderId), "orderId");
        require(amount != null && amount >= 0, "amount (minor units, 0 or more)");
        require(currency != null && currency.matches("[A-Z]{3}"), "currency");
        require(providerTxnId != null && !providerTxnId.isBlank() && providerTxnId.length() <= MAX_ID,
                "providerTxnId");
        require(occurredAt != null, "occurredAt");
        return this;
    }

    public OrderEvent event() {
        return OrderEvent.valueOf(type);
    }

    public UUID order() {
        return UUID.fromString(orderId);
    }

    static boolean isValidId(String id) {
        return id != null && !id.isBlank() && id.length() <= MAX_ID;
    }

    static boolean isUuid(String value) {
        if (value == null) {
            return false;
        }
        try {
            UUID.fromString(value);
            return value.length() == 36;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static void require(boolean ok, String field) {
        if (!ok) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, "The callback needs a valid " + field);
        }
    }
}
