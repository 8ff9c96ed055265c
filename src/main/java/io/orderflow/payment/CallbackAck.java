package io.orderflow.payment;

import io.orderflow.order.domain.OrderStatus;
import java.util.UUID;

/**
 * What a provider gets back for a notification it should stop re-sending: {@code applied} (it moved the order),
 * {@code duplicate} (it was already applied), {@code double-capture} (a second payment; recorded, refund owed) or
 * {@code invalid} (signed, but not a valid notification: recorded as an anomaly, never applied).
 */
public record CallbackAck(String eventId, UUID orderId, String outcome, OrderStatus status) {
}
