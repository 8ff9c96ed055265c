package io.orderflow.payment.stripe;

import com.fasterxml.jackson.databind.JsonNode;
import io.orderflow.common.Ids;
import io.orderflow.payment.spi.PaymentState;
import io.orderflow.payment.spi.ProviderJson;
import io.orderflow.payment.spi.ProviderOutcome;
import io.orderflow.payment.spi.RefundState;
import java.util.UUID;

/**
 * Reads Stripe's PaymentIntent and Refund objects from their raw JSON, for webhooks and API answers alike. The
 * SDK's typed objects would read "2500" as 2500 and depend on the object's API version matching the SDK's; the
 * raw JSON read through {@link ProviderJson} does neither.
 */
final class StripeObjects {

    static final int MAX_ID = 255;

    private StripeObjects() {
    }

    static String id(JsonNode object) {
        return ProviderJson.text(object.get("id"), MAX_ID);
    }

    /** An expandable reference: the id string, or the expanded object's id. */
    static String ref(JsonNode node) {
        if (node != null && node.isObject()) {
            return id(node);
        }
        return ProviderJson.text(node, MAX_ID);
    }

    /** A PaymentIntent as Kill Bill would see it: captured, under way, or failed for good. */
    static ProviderOutcome<PaymentState> intent(JsonNode intent) {
        String id = id(intent);
        String status = intent.path("status").asText("");
        String currency = ProviderJson.currency(intent.get("currency"));
        switch (status) {
            case "succeeded": {
                Long received = ProviderJson.minorUnits(intent.get("amount_received"));
                String charge = ref(intent.get("latest_charge"));
                if (received == null || charge == null || currency == null) {
                    return ProviderOutcome.of(ProviderOutcome.Status.UNDEFINED, "invalid-object",
                            "Stripe reported the PaymentIntent succeeded without a valid amount, charge or currency");
                }
                return ProviderOutcome.processed(new PaymentState(id, charge, received, currency, null));
            }
            case "canceled":
                return new ProviderOutcome<>(ProviderOutcome.Status.ERROR, new PaymentState(id, null, null, currency,
                        "canceled"), "canceled", "The PaymentIntent was canceled");
            case "requires_payment_method":
                if (intent.hasNonNull("last_payment_error")) {
                    String reason = failureReason(intent);
                    return new ProviderOutcome<>(ProviderOutcome.Status.ERROR, new PaymentState(id,
                            ref(intent.path("last_payment_error").get("charge")), null, currency, reason), reason,
                            "The last payment attempt failed");
                }
                return ProviderOutcome.pending(new PaymentState(id, null, null, currency, null));
            default:
                return ProviderOutcome.pending(new PaymentState(id, null, null, currency, null));
        }
    }

    /** Why a PaymentIntent's last attempt failed: the decline code, else the error code. */
    static String failureReason(JsonNode intent) {
        JsonNode error = intent.path("last_payment_error");
        String decline = ProviderJson.text(error.get("decline_code"), MAX_ID);
        String code = ProviderJson.text(error.get("code"), MAX_ID);
        return decline != null ? decline : code != null ? code : "payment_failed";
    }

    /** The refund of ours a Stripe refund was made for: the id the service sent as {@code metadata[command_id]}. */
    static UUID ourRefund(JsonNode refund) {
        return Ids.parseOrNull(ProviderJson.text(refund.path("metadata").get("command_id"), 36));
    }

    /**
     * A Refund, every status Stripe documents mapped: made (succeeded), under way (pending, requires_action), or not
     * made (failed, canceled: an ERROR carrying the refund, its reason Stripe's failure_reason or the status). A
     * status Stripe adds later is UNDEFINED: asked about again, never taken for an answer.
     */
    static ProviderOutcome<RefundState> refund(JsonNode refund) {
        String status = refund.path("status").asText("");
        String failure = ProviderJson.text(refund.get("failure_reason"), MAX_ID);
        RefundState state = new RefundState(id(refund), ref(refund.get("charge")),
                ProviderJson.minorUnits(refund.get("amount")), ProviderJson.currency(refund.get("currency")),
                failure != null ? failure : status.equals("failed") || status.equals("canceled") ? status : null);
        return switch (status) {
            case "succeeded" -> ProviderOutcome.processed(state);
            case "pending", "requires_action" -> ProviderOutcome.pending(state);
            case "failed", "canceled" -> new ProviderOutcome<>(ProviderOutcome.Status.ERROR, state, status,
                    "Stripe did not make the refund");
            default -> new ProviderOutcome<>(ProviderOutcome.Status.UNDEFINED, state, "unknown-status",
                    "Stripe reported the refund " + status);
        };
    }
}
