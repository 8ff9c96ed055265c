package io.orderflow.order.domain;

/** Where an order stands in its lifecycle. Closed set; the table in {@link OrderTransitions} connects them. */
public enum OrderStatus {
    CREATED,
    PAYMENT_PENDING,
    PAID,
    SHIPPED,
    DELIVERED,
    CANCELLED,
    REFUND_PENDING,
    REFUNDED
}
