package io.orderflow.order.domain;

/**
 * The order already took this event with other details: the request cannot be applied and is not a duplicate, so
 * its caller learns what was applied instead of believing its own details were stored.
 */
public class TransitionConflictException extends RuntimeException {

    private final OrderEvent event;
    private final transient EventDetails applied;

    public TransitionConflictException(OrderEvent event, EventDetails applied) {
        super(event + " was already applied to this order with other details");
        this.event = event;
        this.applied = applied;
    }

    public OrderEvent event() {
        return event;
    }

    public EventDetails applied() {
        return applied;
    }
}
