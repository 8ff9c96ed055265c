package io.orderflow.client;

/** The problem types a caller acts on (openapi.yaml's {@code Problem} schema lists them all). */
public final class ProblemTypes {

    private static final String BASE = "https://orderflow.dev/problems/";

    public static final String INVALID_REQUEST = BASE + "invalid-request";
    public static final String NOT_FOUND = BASE + "not-found";
    public static final String ILLEGAL_TRANSITION = BASE + "illegal-transition";
    public static final String TRANSITION_CONFLICT = BASE + "transition-conflict";
    public static final String VERSION_MISMATCH = BASE + "version-mismatch";
    public static final String IDEMPOTENCY_KEY_REUSED = BASE + "idempotency-key-reused";
    public static final String IDEMPOTENCY_KEY_EXPIRED = BASE + "idempotency-key-expired";
    /** The first request with this key is still running: retried after Retry-After. */
    public static final String REQUEST_IN_FLIGHT = BASE + "request-in-flight";
    /** A dependency is down or the service sheds load: retried after Retry-After. */
    public static final String SERVICE_UNAVAILABLE = BASE + "service-unavailable";
    public static final String FEED_CURSOR_EXPIRED = BASE + "feed-cursor-expired";
    /** No type: the answer was no problem document. */
    public static final String ABOUT_BLANK = "about:blank";

    private ProblemTypes() {
    }
}
