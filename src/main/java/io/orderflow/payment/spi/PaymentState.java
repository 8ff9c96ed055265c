package io.orderflow.payment.spi;

/**
 * A payment as its provider reports it on a query. {@code transactionId}, {@code amount} and {@code currency} are
 * set once it is captured (PROCESSED); {@code reason} says why it failed (ERROR).
 */
public record PaymentState(String reference, String transactionId, Long amount, String currency, String reason) {
}
