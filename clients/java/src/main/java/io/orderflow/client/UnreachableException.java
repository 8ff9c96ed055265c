package io.orderflow.client;

import java.io.IOException;

/**
 * No answer came before the retry deadline: every attempt failed to connect, was cut, or timed out. The call may
 * have taken effect; sending it again with {@link #idempotencyKey()} is safe.
 */
public final class UnreachableException extends OrderflowException {

    UnreachableException(String operation, IOException last, String idempotencyKey, int attempts) {
        super(operation + ": no answer after " + attempts + " attempt(s): " + last, last, idempotencyKey, attempts);
    }
}
