package io.orderflow.payment.mockpay;

import com.fasterxml.jackson.databind.JsonNode;
import io.orderflow.common.Ids;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.NotificationRequest;
import io.orderflow.payment.spi.ProviderJson;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;

/**
 * Reads mockpay's body {@code {eventId, type, orderId, attemptId?, amount, currency, providerTxnId, occurredAt}}.
 * The signature is verified before this runs, so whatever the body holds is mockpay's word: a type mockpay does not
 * send is ignored; a body that is not one strict JSON object, or any bad field, makes the event
 * {@link Notification.Invalid}: recorded once as an anomaly (keyed by its eventId, or the body's SHA-256 when it has
 * none) and acknowledged, never coerced, so that mockpay stops re-sending it.
 */
final class MockpayEvents {

    static final String SUCCEEDED = "PAYMENT_SUCCEEDED";
    static final String FAILED = "PAYMENT_FAILED";
    static final String REFUNDED = "REFUND_SUCCEEDED";
    /** A refund mockpay did not make; names the refund ({@code refundId}) and why ({@code reason}). */
    static final String REFUND_FAILED = "REFUND_FAILED";
    /** Event ids are the dedup keys of deliveries, which take at most 255 characters. */
    static final int MAX_ID = 255;

    private MockpayEvents() {
    }

    static Notification parse(byte[] body) {
        JsonNode event = ProviderJson.tree(new String(body, StandardCharsets.UTF_8));
        String eventId = ProviderJson.text(event.get("eventId"), MAX_ID);
        String key = NotificationRequest.keyOf(eventId, body);
        if (!event.isObject()) {
            return new Notification.Invalid(key, "", null, "The body is not one JSON object (trailing bytes, a field"
                    + " sent twice, or no JSON)");
        }
        UUID orderId = uuid(event.get("orderId"));
        String type = ProviderJson.text(event.get("type"), MAX_ID);
        if (eventId == null || orderId == null || type == null) {
            return new Notification.Invalid(key, type == null ? "" : type,
                    orderId == null ? null : new Notification.ByOrder(orderId, null), "The event needs a valid "
                            + (eventId == null ? "eventId" : orderId == null ? "orderId" : "type"));
        }
        if (!type.equals(SUCCEEDED) && !type.equals(FAILED) && !type.equals(REFUNDED) && !type.equals(REFUND_FAILED)) {
            return new Notification.Ignored(eventId, type);
        }
        JsonNode attemptNode = event.get("attemptId");
        UUID attemptId = attemptNode == null || attemptNode.isNull() ? null : uuid(attemptNode);
        Notification.Subject subject = new Notification.ByOrder(orderId, attemptId);
        Long amount = ProviderJson.minorUnits(event.get("amount"));
        String currency = ProviderJson.text(event.get("currency"), 3);
        String txnId = ProviderJson.text(event.get("providerTxnId"), MAX_ID);
        // a refund event names the refund of ours it is about (a failure must; a success may, else it is the capture's)
        JsonNode refundNode = event.get("refundId");
        UUID refundId = refundNode == null || refundNode.isNull() ? null : uuid(refundNode);
        String problem = attemptNode != null && !attemptNode.isNull() && attemptId == null ? "attemptId (a UUID)"
                : refundNode != null && !refundNode.isNull() && refundId == null ? "refundId (a UUID)"
                : type.equals(REFUND_FAILED) && refundId == null ? "refundId (the refund that failed)"
                : amount == null ? "amount (an integer of minor units, 0 or more)"
                : currency == null || !currency.matches("[A-Z]{3}") ? "currency (ISO 4217, upper case)"
                : txnId == null ? "providerTxnId"
                : !isInstant(event.get("occurredAt")) ? "occurredAt (an ISO-8601 instant)"
                : null;
        if (problem != null) {
            return new Notification.Invalid(eventId, type, subject, "The event needs a valid " + problem);
        }
        return switch (type) {
            case SUCCEEDED -> new Notification.PaymentSucceeded(eventId, type, subject, txnId, amount, currency);
            case FAILED -> new Notification.PaymentFailed(eventId, type, subject, txnId, amount, currency, null);
            case REFUND_FAILED -> new Notification.RefundFailed(eventId, type, subject, null, refundId,
                    ProviderJson.text(event.get("reason"), MAX_ID) == null ? "refund failed"
                            : ProviderJson.text(event.get("reason"), MAX_ID));
            default -> new Notification.RefundSucceeded(eventId, type, subject, null, txnId, amount, currency,
                    refundId);
        };
    }

    private static UUID uuid(JsonNode node) {
        return Ids.parseOrNull(ProviderJson.text(node, 36));
    }

    private static boolean isInstant(JsonNode node) {
        try {
            return node != null && node.isTextual() && Instant.parse(node.asText()) != null;
        } catch (DateTimeParseException e) {
            return false;
        }
    }
}
