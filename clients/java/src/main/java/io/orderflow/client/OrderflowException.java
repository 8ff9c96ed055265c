package io.orderflow.client;

/**
 * A call that ended without a success: the service refused it ({@link ProblemException}) or never answered before
 * the retry deadline ({@link UnreachableException}). Carries the call's {@code Idempotency-Key}: a caller that wants
 * to try again later (after a restart, from a queue) sends the same key, and the service answers as it answered the
 * first time.
 */
public abstract class OrderflowException extends RuntimeException {

    private final String idempotencyKey;
    private final int attempts;

    OrderflowException(String message, Throwable cause, String idempotencyKey, int attempts) {
        super(message, cause);
        this.idempotencyKey = idempotencyKey;
        this.attempts = attempts;
    }

    /** The key every attempt of the call carried; null for a read. */
    public String idempotencyKey() {
        return idempotencyKey;
    }

    /** How many requests the call sent. */
    public int attempts() {
        return attempts;
    }
}
