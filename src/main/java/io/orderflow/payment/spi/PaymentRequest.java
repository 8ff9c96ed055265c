package io.orderflow.payment.spi;

import java.util.UUID;

/**
 * Start a payment for one attempt. The attempt id is the key of everything the provider does for it: Stripe's
 * Idempotency-Key, WeChat Pay's {@code out_trade_no}; a retried call therefore finds the same payment.
 *
 * @param amount minor units (cents, fen)
 * @param currency ISO 4217, upper case
 * @param description what the shopper sees on the provider's page
 */
public record PaymentRequest(UUID attemptId, UUID orderId, long amount, String currency, String description) {

    public PaymentRequest {
        if (amount <= 0) {
            throw new IllegalArgumentException("a payment needs a positive amount");
        }
        if (currency == null || !currency.matches("[A-Z]{3}")) {
            throw new IllegalArgumentException("currency must be an ISO 4217 code");
        }
    }

    /** The attempt id in the 32 characters [0-9a-f] that providers with short reference fields accept. */
    public String compactAttemptId() {
        return attemptId.toString().replace("-", "");
    }
}
