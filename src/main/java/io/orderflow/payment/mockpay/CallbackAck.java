package io.orderflow.payment.mockpay;

import java.util.UUID;

/**
 * mockpay's ack body: {@code applied} (it moved the order), {@code duplicate} (it was already applied),
 * {@code double-capture} (a second payment; recorded, refund owed), {@code ignored} (a type mockpay does not act
 * on) or {@code invalid} (a verified event with a bad field; recorded as an anomaly).
 */
public record CallbackAck(String eventId, UUID orderId, String outcome, String status) {
}
