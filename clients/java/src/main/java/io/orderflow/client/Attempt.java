package io.orderflow.client;

import java.time.Duration;

/**
 * One failed attempt of a call, told to the {@link OrderflowClient.Builder#onRetry listener} before the client
 * waits {@link #delay()} and sends it again, or gives up ({@code delay} null).
 */
public final class Attempt {

    private final String operation;
    private final String idempotencyKey;
    private final int number;
    private final int status;
    private final String problemType;
    private final String failure;
    private final Duration delay;

    Attempt(String operation, String idempotencyKey, int number, int status, String problemType, String failure,
            Duration delay) {
        this.operation = operation;
        this.idempotencyKey = idempotencyKey;
        this.number = number;
        this.status = status;
        this.problemType = problemType;
        this.failure = failure;
        this.delay = delay;
    }

    public String operation() {
        return operation;
    }

    /** The call's key, the same on every attempt; null for a read. */
    public String idempotencyKey() {
        return idempotencyKey;
    }

    /** 1 for the first request of the call. */
    public int number() {
        return number;
    }

    /** The answer's status; 0 when no answer came. */
    public int status() {
        return status;
    }

    /** The problem's type, when the answer was one. */
    public String problemType() {
        return problemType;
    }

    /** The problem's title or the connection error. */
    public String failure() {
        return failure;
    }

    public Duration delay() {
        return delay;
    }

    public boolean willRetry() {
        return delay != null;
    }

    @Override
    public String toString() {
        return operation + " attempt " + number + " (key " + idempotencyKey + "): " + (status == 0 ? "" : status + " ")
                + failure + (willRetry() ? ", again in " + delay.toMillis() + " ms" : ", giving up");
    }
}
