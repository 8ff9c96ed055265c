package io.orderflow.payment.attempts;

import java.util.UUID;

/**
 * One try at paying an order: every PAY starts one. {@code reference} is what the provider calls it (Stripe
 * PaymentIntent id, WeChat Pay {@code out_trade_no}, mockpay's own); provider events are matched to an attempt by it.
 */
public record PaymentAttempt(UUID id, UUID orderId, String provider, String reference, long amount, String currency,
        State state) {

    public enum State {
        /** Started at the provider; the shopper has not paid (or we have not heard). */
        PENDING,
        /** The provider captured money for it. */
        CAPTURED,
        /** The provider said it failed. */
        FAILED,
        /** A later PAY with another provider took its place; it is cancelled at its provider where allowed. */
        REPLACED,
        /** Its order was cancelled while it was pending, and its provider closed it at our request. */
        CANCELLED
    }
}
