package io.orderflow.payment.spi;

/**
 * What a provider call came to, in Kill Bill's terms, so the core knows what it may do next without knowing the
 * provider: {@code value} is set for {@link Status#PROCESSED} and {@link Status#PENDING} (and, for a query, may be
 * set for {@link Status#ERROR}); {@code code} and {@code message} say why otherwise. The message never contains a
 * credential. An {@link Status#ERROR} says which kind of no it is ({@link Refusal}): only a
 * {@link Refusal#DECLINED} is the provider's answer about the request itself.
 */
public record ProviderOutcome<T>(Status status, T value, String code, String message, Refusal refusal) {

    /** Which kind of no an {@link Status#ERROR} is; null for every other status. */
    public enum Refusal {
        /**
         * The provider refused this request, or reports the object failed (a refund it did not make, a payment
         * that failed): a definite answer about it. Retrying gives the same no.
         */
        DECLINED,
        /**
         * The provider would not let us ask (authentication or permission refused, an object of ours it does not
         * know: another account or mode, a key reused with other parameters): it says nothing about the request,
         * whose outcome is still owed. A configuration an operator must fix.
         */
        CANNOT_ASK,
        /** The provider says it was done already (Stripe {@code charge_already_refunded}): look up what was done. */
        ALREADY_DONE
    }

    public ProviderOutcome {
        refusal = status == Status.ERROR ? (refusal == null ? Refusal.DECLINED : refusal) : null;
    }

    public ProviderOutcome(Status status, T value, String code, String message) {
        this(status, value, code, message, null);
    }

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

    /** The provider said no to this very request, or reports the object failed: a definite answer about it. */
    public boolean isDeclined() {
        return refusal == Refusal.DECLINED;
    }

    /** The provider said the object looked up does not exist (see {@link #notFound}). */
    public boolean isNotFound() {
        return status == Status.CANCELED && NOT_FOUND.equals(code);
    }

    public boolean is(Status wanted) {
        return status == wanted;
    }
}
