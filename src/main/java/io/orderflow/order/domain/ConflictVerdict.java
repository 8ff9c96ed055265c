package io.orderflow.order.domain;

import java.util.List;

/**
 * What a transition that could not be applied as asked turns out to be. Decided from the table and the order's
 * history only, so that a retry of an old request is never mistaken for a new one after the order has gone
 * around a loop (PAY → PAYMENT_FAILED → CANCEL, then a late PAY is illegal, not a duplicate).
 */
public enum ConflictVerdict {
    /** The event is legal from the state the order is in now: compare-and-set again. */
    RETRY,
    /** The order already took this event from the last state where it applied: answer success, write nothing. */
    DUPLICATE,
    /** The order went another way, or never stood where the event applies. */
    ILLEGAL;

    /**
     * @param current the order's status as just re-read
     * @param event the event that was asked for
     * @param history the order's transitions, oldest first
     */
    public static ConflictVerdict judge(OrderStatus current, OrderEvent event, List<Transition> history) {
        if (OrderTransitions.allows(current, event)) {
            return RETRY;
        }
        for (int i = history.size() - 1; i >= 0; i--) {
            Transition t = history.get(i);
            if (OrderTransitions.allows(t.from(), event)) {
                return t.event() == event ? DUPLICATE : ILLEGAL;
            }
        }
        return ILLEGAL;
    }
}
