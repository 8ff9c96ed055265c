package io.orderflow.order.domain;

import java.util.Set;

/** The table does not take {@code event} from {@code current}, and it is not a duplicate either. */
public class IllegalTransitionException extends RuntimeException {

    private final OrderStatus current;
    private final OrderEvent event;

    public IllegalTransitionException(OrderStatus current, OrderEvent event) {
        super(event + " is not allowed when the order is " + current);
        this.current = current;
        this.event = event;
    }

    public OrderStatus current() {
        return current;
    }

    public OrderEvent event() {
        return event;
    }

    public Set<OrderEvent> allowedEvents() {
        return OrderTransitions.allowedEvents(current);
    }
}
