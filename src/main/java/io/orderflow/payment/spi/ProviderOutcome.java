package io.orderflow.payment.spi;

/**
 * What a provider call came to, in Kill Bill's terms, so the core knows what it may do next without knowing the
 * provider: {@code value} is set for {@link Status#PROCESSED} and {@link Status#PENDING} (and, for a query, may be
 * set for {@link Status#ERROR}); {@code code} and {@code message} say why otherwise. The message never contains a
 * credential.
 */
public record ProviderOutcome<T>(Status status, T value, String code, String message) {

    public enum Status {
        /** Done at the provider: the payment is captured, the refund made, the cancel effective. */
        PROCESSED,
        /** Accepted and under way: wait for a notification or ask again later. */
        PENDING,
        /** The provider said no; final. Retrying the same call gives the same no. */
        ERROR,
        /** Nothing happened at the provider (not sent, refused before processing): safe to call again. */
        CANCELED,
        /** We do not know whether it happened (timeout, 5xx): never repeated blindly, resolved by a query. */
        UNDEFINED
    }

    public static <T> ProviderOutcome<T> processed(T value) {
        return new ProviderOutcome<>(Status.PROCESSED, value, null, null);
    }

    public static <T> ProviderOutcome<T> pending(T value) {
        return new ProviderOutcome<>(Status.PENDING, value, null, null);
    }

    /**
     * The provider answered a look-up and has no such object: CANCELED (nothing happened) with this code. Only this
     * answer says "none exists"; a CANCELED for any other reason (rate-limited, never connected, circuit open) means
     * the question was not answered, and must never be read as "none".
     */
    public static final String NOT_FOUND = "not-found";

    public static <T> ProviderOutcome<T> notFound(String message) {
        return new ProviderOutcome<>(Status.CANCELED, null, NOT_FOUND, message);
    }

    public static <T> ProviderOutcome<T> of(Status status, String code, String message) {
        return new ProviderOutcome<>(status, null, code, message);
    }

    /** The provider said the object looked up does not exist (see {@link #notFound}). */
    public boolean isNotFound() {
        return status == Status.CANCELED && NOT_FOUND.equals(code);
    }

    public boolean is(Status wanted) {
        return status == wanted;
    }
}
