package io.orderflow.payment.stripe;

import com.fasterxml.jackson.databind.JsonNode;
import com.stripe.exception.SignatureVerificationException;
import com.stripe.net.Webhook;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.NotificationRejected;
import io.orderflow.payment.spi.NotificationRequest;
import io.orderflow.payment.spi.ProviderJson;
import io.orderflow.payment.spi.SignedAt;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

/**
 * Stripe's webhooks: {@code Stripe-Signature: t=...,v1=...} verified by stripe-java over the raw payload with each
 * configured secret in turn (rotation), then the event mapped. Handled: {@code payment_intent.succeeded},
 * {@code payment_intent.payment_failed}, {@code charge.refunded} (a full refund) and
 * {@code refund.created}/{@code refund.updated}/{@code refund.failed} once succeeded, failed or canceled; every other
 * type is ignored.
 */
final class StripeWebhooks {

    static final String SIGNATURE_HEADER = "Stripe-Signature";

    private final List<String> secrets;
    private final Duration tolerance;

    StripeWebhooks(List<String> secrets, Duration tolerance) {
        this.secrets = List.copyOf(secrets);
        this.tolerance = tolerance;
    }

    /**
     * The signature is verified over the raw payload first (stripe-java's {@code Webhook.Signature}, with each
     * secret in turn), and only then the payload read, strictly: a signed payload is Stripe's word, so one that is
     * no event (no JSON object, an id or type that is no safe text) is {@link Notification.Invalid} — recorded once
     * under the payload's SHA-256 and acknowledged — never a 4xx Stripe would re-send for three days.
     */
    Notification verify(NotificationRequest request, Instant now) {
        String header = request.header(SIGNATURE_HEADER);
        if (header == null || header.isBlank() || header.length() > 4096) {
            throw new NotificationRejected(ProblemType.SIGNATURE_MISSING, "Send a Stripe-Signature header");
        }
        Long signedAt = signedAt(header);
        if (signedAt != null) {
            SignedAt.requireWithin(signedAt, now, tolerance);
        }
        String payload = request.bodyText();
        verifySignature(payload, header, Clock.fixed(now, ZoneOffset.UTC));
        // the event is read from the verified payload itself: the same bytes, without the SDK's coercions
        JsonNode event = ProviderJson.tree(payload);
        String id = ProviderJson.text(event.get("id"), StripeObjects.MAX_ID);
        String type = ProviderJson.text(event.get("type"), StripeObjects.MAX_ID);
        if (!event.isObject() || id == null || type == null) {
            return new Notification.Invalid(request.keyOf(id), type == null ? "" : type, null,
                    event.isObject() ? "The event needs a valid " + (id == null ? "id" : "type")
                            : "The payload is not one JSON object (trailing bytes, a field sent twice, or no JSON)");
        }
        return parse(id, type, event.path("data").path("object"));
    }

    /**
     * The header's {@code t=}, or null without one (stripe-java refuses that); stripe-java refuses only a time too
     * far in the past, so the rule of every provider ({@link SignedAt}) is applied here.
     */
    private static Long signedAt(String header) {
        for (String part : header.split(",")) {
            String[] kv = part.trim().split("=", 2);
            if (kv.length == 2 && kv[0].equals("t")) {
                try {
                    return Long.parseLong(kv[1]);
                } catch (NumberFormatException e) {
                    throw garbled();
                }
            }
        }
        return null;
    }

    private static NotificationRejected garbled() {
        return new NotificationRejected(ProblemType.SIGNATURE_MISSING,
                "The Stripe-Signature header is garbled (t=<unix seconds>,v1=<hex>)");
    }

    private void verifySignature(String payload, String header, Clock clock) {
        for (String secret : secrets) {
            try {
                Webhook.Signature.verifyHeader(payload, header, secret, tolerance.toSeconds(), clock);
                return;
            } catch (SignatureVerificationException wrongSecretOrStale) {
                // the next secret may be the one; none is: refused below
            } catch (IllegalStateException | NumberFormatException garbled) {
                throw garbled();
            }
        }
        throw new NotificationRejected(ProblemType.SIGNATURE_INVALID,
                "No webhook secret signs this payload, or its timestamp is outside the tolerance");
    }

    /** {@code eventId} and {@code type} are safe text (see {@link ProviderJson#text}). */
    static Notification parse(String eventId, String type, JsonNode object) {
        return switch (type) {
            case "payment_intent.succeeded" -> succeeded(eventId, type, object);
            case "payment_intent.payment_failed" -> failed(eventId, type, object);
            case "charge.refunded" -> chargeRefunded(eventId, type, object);
            case "refund.created", "refund.updated", "refund.failed" -> refund(eventId, type, object);
            default -> new Notification.Ignored(eventId, type);
        };
    }

    private static Notification succeeded(String eventId, String type, JsonNode intent) {
        String reference = StripeObjects.id(intent);
        if (reference == null) {
            return invalid(eventId, type, null, "data.object.id");
        }
        Notification.Subject subject = new Notification.ByReference(reference);
        Long received = ProviderJson.minorUnits(intent.get("amount_received"));
        String currency = ProviderJson.currency(intent.get("currency"));
        String charge = StripeObjects.ref(intent.get("latest_charge"));
        if (received == null) {
            return invalid(eventId, type, subject, "amount_received (an integer of minor units)");
        }
        if (currency == null) {
            return invalid(eventId, type, subject, "currency");
        }
        if (charge == null) {
            return invalid(eventId, type, subject, "latest_charge");
        }
        return new Notification.PaymentSucceeded(eventId, type, subject, charge, received, currency);
    }

    private static Notification failed(String eventId, String type, JsonNode intent) {
        String reference = StripeObjects.id(intent);
        if (reference == null) {
            return invalid(eventId, type, null, "data.object.id");
        }
        Notification.Subject subject = new Notification.ByReference(reference);
        Long amount = ProviderJson.minorUnits(intent.get("amount"));
        String currency = ProviderJson.currency(intent.get("currency"));
        if (amount == null || currency == null) {
            return invalid(eventId, type, subject, amount == null ? "amount (an integer of minor units)" : "currency");
        }
        return new Notification.PaymentFailed(eventId, type, subject,
                StripeObjects.ref(intent.path("last_payment_error").get("charge")), amount, currency,
                StripeObjects.failureReason(intent));
    }

    /** A charge is refunded in full when {@code refunded} is true; a partial refund is not one orderflow made. */
    private static Notification chargeRefunded(String eventId, String type, JsonNode charge) {
        String chargeId = StripeObjects.id(charge);
        String intent = StripeObjects.ref(charge.get("payment_intent"));
        if (chargeId == null || intent == null) {
            return invalid(eventId, type, null, chargeId == null ? "data.object.id" : "payment_intent");
        }
        Notification.Subject subject = new Notification.ByReference(intent);
        Long refunded = ProviderJson.minorUnits(charge.get("amount_refunded"));
        String currency = ProviderJson.currency(charge.get("currency"));
        if (refunded == null || currency == null) {
            return invalid(eventId, type, subject, refunded == null ? "amount_refunded" : "currency");
        }
        if (!charge.path("refunded").isBoolean() || !charge.get("refunded").asBoolean()) {
            return new Notification.Invalid(eventId, type, subject,
                    "Charge " + chargeId + " was refunded in part (" + refunded + "); orderflow refunds in full only");
        }
        return new Notification.RefundSucceeded(eventId, type, subject, null, chargeId, refunded, currency);
    }

    /**
     * A refund, named by the refund id of ours the service sent as {@code metadata[command_id]}: succeeded, or
     * failed/canceled (not made: owed again); pending and requires_action change nothing yet.
     */
    private static Notification refund(String eventId, String type, JsonNode refund) {
        String status = refund.path("status").asText("");
        UUID ours = StripeObjects.ourRefund(refund);
        if (status.equals("failed") || status.equals("canceled")) {
            String refundId = StripeObjects.id(refund);
            String intent = StripeObjects.ref(refund.get("payment_intent"));
            String reason = ProviderJson.text(refund.get("failure_reason"), StripeObjects.MAX_ID);
            return new Notification.RefundFailed(eventId, type, intent == null ? null
                    : new Notification.ByReference(intent), refundId, ours, reason != null ? reason : status);
        }
        if (!status.equals("succeeded")) {
            return new Notification.Ignored(eventId, type + " (" + status + ")");
        }
        String refundId = StripeObjects.id(refund);
        String charge = StripeObjects.ref(refund.get("charge"));
        String intent = StripeObjects.ref(refund.get("payment_intent"));
        if (refundId == null || charge == null || intent == null) {
            return invalid(eventId, type, null, refundId == null ? "data.object.id" : "charge and payment_intent");
        }
        Notification.Subject subject = new Notification.ByReference(intent);
        Long amount = ProviderJson.minorUnits(refund.get("amount"));
        String currency = ProviderJson.currency(refund.get("currency"));
        if (amount == null || currency == null) {
            return invalid(eventId, type, subject, amount == null ? "amount (an integer of minor units)" : "currency");
        }
        return new Notification.RefundSucceeded(eventId, type, subject, refundId, charge, amount, currency, ours);
    }

    private static Notification.Invalid invalid(String eventId, String type, Notification.Subject subject,
            String field) {
        return new Notification.Invalid(eventId, type, subject, "The event needs a valid " + field);
    }
}
