package io.orderflow.order.domain;

/**
 * A provider's report that is not about the payment the order stands on (a failure of a superseded attempt, a
 * refund of a capture that did not pay the order): the order does not move, whatever its status.
 */
public class NotConcernedException extends RuntimeException {

    private final transient Order order;

    public NotConcernedException(Order order, OrderEvent event) {
        super(event + " is about another payment than the one order " + order.id() + " stands on");
        this.order = order;
    }

    /** The order as it stands. */
    public Order order() {
        return order;
    }
}
