package io.orderflow.idempotency;

import java.time.Duration;

/** Business tier of a dedup record; decides its retention. */
public enum RetentionTier {
    ORDERS, PAYMENTS;

    public Duration retention(IdempotencyConfig config) {
        return this == PAYMENTS ? config.retention().payments() : config.retention().orders();
    }
}
