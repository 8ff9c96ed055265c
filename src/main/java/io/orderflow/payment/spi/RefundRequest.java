package io.orderflow.payment.spi;

import java.util.UUID;

/**
 * Refund one capture in full. The command id keys the refund at the provider (Stripe's Idempotency-Key and refund
 * metadata, WeChat Pay's {@code out_refund_no}), so a retried or re-queried command finds the one refund it made.
 *
 * @param paymentReference the attempt's provider reference (PaymentIntent id, {@code out_trade_no})
 * @param captureId the provider's transaction id of the capture to refund (charge id, {@code transaction_id})
 * @param refundId the provider's refund id when a previous call learnt it, else null
 */
public record RefundRequest(UUID commandId, String paymentReference, String captureId, long amount,
        String currency, String refundId) {

    public String compactCommandId() {
        return commandId.toString().replace("-", "");
    }
}
