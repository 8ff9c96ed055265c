package io.orderflow.payment.spi;

import java.util.UUID;

/**
 * What the core decided about a notification, for the adapter to put into its provider's ack format.
 *
 * @param outcome {@code applied}, {@code duplicate}, {@code double-capture}, {@code ignored} or {@code invalid}
 * @param orderId the order it concerned, when known
 * @param orderStatus the order's status after it, when known
 */
public record Acknowledgement(Notification notification, String outcome, UUID orderId, String orderStatus) {
}
