package io.orderflow.common.problem;

import java.net.URI;

/**
 * Every kind of failure the service answers with, as an RFC 9457 problem type. The same list stands in
 * {@code openapi.yaml}; a client switches on {@link #uri()}, never on the title or detail text.
 */
public enum ProblemType {
    INVALID_REQUEST("invalid-request", "The request is invalid", 400),
    MALFORMED_BODY("malformed-body", "The body is not valid JSON of the expected shape", 400),
    IDEMPOTENCY_KEY_MISSING("idempotency-key-missing", "An Idempotency-Key header is required", 400),
    IDEMPOTENCY_KEY_INVALID("idempotency-key-invalid", "The Idempotency-Key header is malformed", 400),
    SIGNATURE_MISSING("signature-missing", "The Payment-Signature header is missing or garbled", 400),
    SIGNATURE_INVALID("signature-invalid", "The callback's signature does not verify", 401),
    UNAUTHORIZED("unauthorized", "A valid bearer token is required", 401),
    FORBIDDEN("forbidden", "Your role does not allow this", 403),
    NOT_FOUND("not-found", "No such resource", 404),
    METHOD_NOT_ALLOWED("method-not-allowed", "Method not allowed", 405),
    NOT_ACCEPTABLE("not-acceptable", "No acceptable representation", 406),
    ILLEGAL_TRANSITION("illegal-transition", "The transition is not allowed from the order's current status", 409),
    TRANSITION_CONFLICT("transition-conflict",
            "The order already took this event with other details; this request was not applied", 409),
    REQUEST_IN_FLIGHT("request-in-flight", "A request with this Idempotency-Key is still being processed", 409),
    VERSION_MISMATCH("version-mismatch", "The order is not at the version named in If-Match", 412),
    PAYLOAD_TOO_LARGE("payload-too-large", "The request body is too large", 413),
    URI_TOO_LONG("uri-too-long", "The request's path and query are too long", 414),
    HEADERS_TOO_LARGE("headers-too-large", "The request's headers are too large", 431),
    UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", "The request's content type is not supported", 415),
    IDEMPOTENCY_KEY_REUSED("idempotency-key-reused",
            "The Idempotency-Key was already used with a different request", 422),
    IDEMPOTENCY_KEY_EXPIRED("idempotency-key-expired",
            "The Idempotency-Key has expired; its request will not be executed again", 422),
    TOKEN_INVALID("token-invalid", "The one-time token is unknown, expired or was issued to someone else", 422),
    PROVIDER_UNKNOWN("payment-provider-unknown", "No such payment provider is offered here", 400),
    PAYMENT_REFUSED("payment-refused", "The payment provider refused to start the payment", 422),
    AMOUNT_MISMATCH("amount-mismatch", "The payment's amount or currency differs from the order's", 422),
    REFUND_NOT_ALLOWED("refund-not-allowed", "The order holds no capture that can be refunded", 409),
    REFUND_EXCEEDS_CAPTURE("refund-exceeds-capture",
            "The refund is more than what is left to refund of the order's capture", 409),
    FEED_CURSOR_EXPIRED("feed-cursor-expired",
            "The cursor is older than the oldest event the feed still keeps; events after it were purged", 410),
    WEBHOOK_ENDPOINT_LIMIT("webhook-endpoint-limit", "As many webhook endpoints are enabled as the service allows",
            409),
    CONFLICTING_WRITE("conflicting-write",
            "A rule of the stored data refused the write (another request changed it first); nothing was written", 409),
    SERVICE_UNAVAILABLE("service-unavailable", "The service cannot take the request right now; retry later", 503),
    INTERNAL("internal", "Internal error", 500);

    public static final String BASE = "https://orderflow.dev/problems/";

    private final String slug;
    private final String title;
    private final int status;

    ProblemType(String slug, String title, int status) {
        this.slug = slug;
        this.title = title;
        this.status = status;
    }

    public URI uri() {
        return URI.create(BASE + slug);
    }

    public String slug() {
        return slug;
    }

    public String title() {
        return title;
    }

    public int status() {
        return status;
    }
}
