package io.orderflow.payment;

import io.orderflow.order.domain.OrderStatus;
import java.util.UUID;

/**
 * What a provider gets back for a notification it should stop re-sending: {@code applied} (it moved the order),
 * {@code duplicate} (it was already applied) or {@code double-capture} (a second payment; recorded, refund owed).
 */
public record CallbackAck(String eventId, UUID orderId, String outcome, OrderStatus status) {
}
