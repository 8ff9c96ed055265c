package io.orderflow.order.domain;

/**
 * The parts of an order an event records, besides its status and version. An event's {@link EventDetails#changes}
 * name new values for some of them; the database applies the same changes in the compare-and-set itself, so no
 * event needs the order read first.
 */
public enum OrderField {
    PAYMENT_PROVIDER,
    PAYMENT_TXN_ID,
    PAID_AT,
    REFUNDED_AT,
    CARRIER,
    TRACKING_NUMBER,
    SHIPPED_AT,
    DELIVERED_AT,
    CANCEL_REASON,
    CANCELLED_AT
}
