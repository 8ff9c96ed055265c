package io.orderflow.payment.spi;

/**
 * A payment created at the provider: its reference (Stripe PaymentIntent id, WeChat Pay {@code out_trade_no}) and
 * what the shop's front end needs to let the shopper pay (a {@code client_secret}, a {@code code_url}).
 */
public record PaymentSession(String reference, Credential customerAction) {
}
