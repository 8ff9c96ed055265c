package io.orderflow.payment.callbacks;

import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderStatus;

/**
 * What the one transition path said about a report's event, as a value: the path decides legality, amount and
 * whose payment it is in its own statement (no read before the move), so {@link ReportVerdict} judges its answer.
 */
sealed interface TransitionOutcome {

    /** The statement ran: the order moved ({@code applied}), or had already taken the event. */
    record Moved(boolean applied, Order order) implements TransitionOutcome {
    }

    /** No order has the id the report's attempt names. */
    record NoOrder() implements TransitionOutcome {
    }

    /** The order's state cannot take the event (the table says so). */
    record Illegal(OrderStatus current, String message) implements TransitionOutcome {
    }

    /** The report's amount or currency is not the order's. */
    record AmountMismatch(Order order, String message) implements TransitionOutcome {
    }

    /** The report is about a payment the order does not stand on. */
    record NotConcerned(Order order) implements TransitionOutcome {
    }

    /** The statement failed on the capture's key: another order took the transaction id. */
    record CaptureTaken() implements TransitionOutcome {
    }
}
