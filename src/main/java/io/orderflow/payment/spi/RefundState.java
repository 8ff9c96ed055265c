package io.orderflow.payment.spi;

/** A refund as its provider reports it: the provider's refund id and the capture it gives back. */
public record RefundState(String refundId, String captureId, Long amount, String currency, String reason) {
}
