package io.orderflow.model;

import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.order.domain.OrderTransitions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * An in-memory order: the transition table, the duplicate rule and the provider's transaction id, with none of
 * the service's machinery (no CAS, no dedup records, no Redis) and none of its code beyond the table itself: the
 * duplicate rule is written here again, from the specification, so that the service's verdict is checked against
 * an independent oracle. The service must always agree with it.
 */
final class LifecycleModel {

    /** What the service should answer: a status code, for 200 the order's status and callback outcome, else the problem type. */
    record Expected(int status, OrderStatus orderStatus, String outcome, String problem) {
    }

    /** An applied move and the details it was applied with (carrier/tracking, cancel reason; null when none). */
    private record Move(OrderEvent event, OrderStatus from, String details) {
    }

    private OrderStatus status = OrderStatus.CREATED;
    private final List<Move> moves = new ArrayList<>();
    private String capturedTxn;
    /** Second captures of the order, each kept with a refund owed. */
    private final Set<String> doubleCaptures = new HashSet<>();

    /**
     * @param details what the request asks for besides the event: "carrier/tracking" for SHIP, the reason (or null
     *        for none) for CANCEL, null otherwise
     */
    Expected apply(OrderEvent event, String details, String txn) {
        // a refund is matched to the capture it gives back: another capture's refund never moves the order
        if (event == OrderEvent.REFUND_SUCCEEDED && !Objects.equals(txn, capturedTxn)) {
            return new Expected(200, status, doubleCaptures.contains(txn) ? "other-capture" : "unknown-capture",
                    null);
        }
        // no refund of ours is ever issued for a capture of an order that was never REFUND_PENDING here: a refund of
        // it is money the service did not send
        if (event == OrderEvent.REFUND_SUCCEEDED && OrderTransitions.allows(status, OrderEvent.REFUND_COMPLETED)) {
            return new Expected(200, status, "unaccounted-refund", null);
        }
        // every PAY of the model names the same provider: while PAYMENT_PENDING that is a repeat, not a change
        if (OrderTransitions.allows(status, event)
                && OrderTransitions.condition(status, event) == OrderTransitions.Condition.ALWAYS) {
            moves.add(new Move(event, status, details));
            status = OrderTransitions.next(status, event).orElseThrow();
            if (event == OrderEvent.PAYMENT_SUCCEEDED) {
                capturedTxn = txn;
            } else if (event == OrderEvent.PAY || event == OrderEvent.PAYMENT_FAILED) {
                capturedTxn = null;
            }
            return new Expected(200, status, "applied", null);
        }
        // the specification's rule: the last move out of a state where the event applies says what became of it
        for (int i = moves.size() - 1; i >= 0; i--) {
            Move move = moves.get(i);
            if (!OrderTransitions.allows(move.from(), event) || move.event() != event
                    && OrderTransitions.condition(move.from(), event) != OrderTransitions.Condition.ALWAYS) {
                continue;
            }
            if (move.event() != event) {
                return illegal(event);
            }
            if (!asksTheSame(event, details, move.details())) {
                return new Expected(409, status, null, "transition-conflict");
            }
            boolean doubleCapture = event == OrderEvent.PAYMENT_SUCCEEDED && capturedTxn != null
                    && !capturedTxn.equals(txn);
            if (doubleCapture) {
                doubleCaptures.add(txn);
            }
            return new Expected(200, status, doubleCapture ? "double-capture" : "duplicate", null);
        }
        return illegal(event);
    }

    /** A repeat asks for the same thing when its details are those applied; a cancel without a reason names none. */
    private static boolean asksTheSame(OrderEvent event, String asked, String applied) {
        return switch (event) {
            case SHIP -> Objects.equals(asked, applied);
            case CANCEL -> asked == null || Objects.equals(asked, applied);
            default -> true;
        };
    }

    /** Refused over the API (409); a provider's event the order cannot take is acknowledged (200) and recorded. */
    private Expected illegal(OrderEvent event) {
        boolean callback = event == OrderEvent.PAYMENT_SUCCEEDED || event == OrderEvent.PAYMENT_FAILED
                || event == OrderEvent.REFUND_SUCCEEDED;
        return callback ? new Expected(200, status, "illegal", null) : new Expected(409, status, null,
                "illegal-transition");
    }

    OrderStatus status() {
        return status;
    }

    List<OrderEvent> events() {
        return moves.stream().map(Move::event).toList();
    }
}
