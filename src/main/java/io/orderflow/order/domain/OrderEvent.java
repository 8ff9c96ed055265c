package io.orderflow.order.domain;

/** A business fact that may move an order. Clients send PAY, SHIP, DELIVER, CANCEL; payment providers the rest. */
public enum OrderEvent {
    PAY(true),
    PAYMENT_SUCCEEDED(true),
    PAYMENT_FAILED(true),
    SHIP(false),
    DELIVER(false),
    CANCEL(false),
    REFUND_SUCCEEDED(true),
    /** The order's refunds that succeeded add up to its capture (refunds of a PAID, SHIPPED or DELIVERED order). */
    REFUND_COMPLETED(true);

    private final boolean requiresKey;

    OrderEvent(boolean requiresKey) {
        this.requiresKey = requiresKey;
    }

    /**
     * Whether every request of this event carries an idempotency key: PAY's Idempotency-Key (the table leads back to
     * where PAY applies, so only its dedup record tells a re-send from a new PAY) and a provider report's event id.
     * The others may come without one: once applied they never apply again, so the table alone makes their re-send
     * safe (KeylessResendTest checks every such event of the table).
     */
    public boolean requiresKey() {
        return requiresKey;
    }
}
