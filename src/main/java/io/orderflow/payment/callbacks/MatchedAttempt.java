package io.orderflow.payment.callbacks;

import io.orderflow.payment.attempts.PaymentAttempt;
import java.util.UUID;

/**
 * The payment a notification is about: its order, and its attempt ({@code attemptId} and {@code attempt} null: the
 * order's current one, as a mockpay event that names only the order means).
 */
record MatchedAttempt(UUID orderId, UUID attemptId, PaymentAttempt attempt) {

    static MatchedAttempt of(PaymentAttempt attempt) {
        return new MatchedAttempt(attempt.orderId(), attempt.id(), attempt);
    }
}
