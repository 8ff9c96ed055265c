package io.orderflow.order.domain;

/**
 * The parts of an order an event records, besides its status and version. An event's {@link EventDetails#changes}
 * name new values for some of them; the database applies the same changes in the compare-and-set itself, so no
 * event needs the order read first.
 */
public enum OrderField {
    PAYMENT_PROVIDER,
    PAYMENT_TXN_ID,
    /** The payment attempt the order stands on: the last one PAY started, or the one whose capture paid it. */
    PAYMENT_ATTEMPT_ID,
    PAID_AT,
    REFUNDED_AT,
    /** The sum of the order's refunds that succeeded (the whole amount once REFUNDED). */
    REFUNDED_AMOUNT,
    CARRIER,
    TRACKING_NUMBER,
    SHIPPED_AT,
    DELIVERED_AT,
    CANCEL_REASON,
    CANCELLED_AT
}
