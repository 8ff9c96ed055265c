package io.orderflow.order.domain;

import java.util.List;
import java.util.Optional;

/**
 * What a transition request that did not move the order turns out to be. Decided from the order as it stands, the
 * table and the order's history only, so that a retry of an old request is never mistaken for a new one after the
 * order has gone around a loop (PAY → PAYMENT_FAILED → CANCEL, then a late PAY is illegal, not a duplicate).
 */
public enum ConflictVerdict {
    /** The event is legal from the state the order is in now (another request moved it meanwhile): try again. */
    RETRY,
    /** The order already took this event, asked the same way, from the last state where it applied: success. */
    DUPLICATE,
    /** The order already took this event, but with other details (another tracking number, another reason). */
    CONFLICT,
    /** If-Match named another version, and the request is not a duplicate. */
    VERSION_MISMATCH,
    /** A provider reported an amount or currency other than the order's. */
    AMOUNT_MISMATCH,
    /** The order went another way, or never stood where the event applies. */
    ILLEGAL;

    /**
     * @param current the order as it stands
     * @param event the event that was asked for, with its {@code details}
     * @param ifMatch the version the request insisted on, or null
     * @param history the order's transitions, oldest first, with their details
     */
    public static ConflictVerdict judge(Order current, OrderEvent event, EventDetails details, Long ifMatch,
            List<Transition> history) {
        if (!details.agreesWithAmountOf(current)) {
            return AMOUNT_MISMATCH;
        }
        boolean versionOk = ifMatch == null || ifMatch == current.version();
        if (OrderTransitions.allows(current.status(), event)) {
            return versionOk ? RETRY : VERSION_MISMATCH;
        }
        Optional<Transition> applied = lastMoveFromWhere(event, history);
        if (applied.isPresent() && applied.get().event() == event) {
            return details.sameRequestAs(applied.get().details()) ? DUPLICATE : CONFLICT;
        }
        return versionOk ? ILLEGAL : VERSION_MISMATCH;
    }

    /**
     * The last transition that left a state where {@code event} applies: the move that decided what became of
     * {@code event} (if it is {@code event} itself, the order took it).
     */
    public static Optional<Transition> lastMoveFromWhere(OrderEvent event, List<Transition> history) {
        for (int i = history.size() - 1; i >= 0; i--) {
            Transition t = history.get(i);
            if (OrderTransitions.allows(t.from(), event)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
