package io.orderflow.order.domain;

/** A business fact that may move an order. Clients send PAY, SHIP, DELIVER, CANCEL; payment providers the rest. */
public enum OrderEvent {
    PAY,
    PAYMENT_SUCCEEDED,
    PAYMENT_FAILED,
    SHIP,
    DELIVER,
    CANCEL,
    REFUND_SUCCEEDED,
    /** The order's refunds that succeeded add up to its capture (refunds of a PAID, SHIPPED or DELIVERED order). */
    REFUND_COMPLETED
}
