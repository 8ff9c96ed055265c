package io.orderflow.model;

import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.order.domain.OrderTransitions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

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

    /**
     * @param details what the request asks for besides the event: "carrier/tracking" for SHIP, the reason (or null
     *        for none) for CANCEL, null otherwise
     */
    Expected apply(OrderEvent event, String details, String txn) {
        if (OrderTransitions.allows(status, event)) {
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
            if (!OrderTransitions.allows(move.from(), event)) {
                continue;
            }
            if (move.event() != event) {
                return illegal();
            }
            if (!asksTheSame(event, details, move.details())) {
                return new Expected(409, status, null, "transition-conflict");
            }
            boolean doubleCapture = event == OrderEvent.PAYMENT_SUCCEEDED && capturedTxn != null
                    && !capturedTxn.equals(txn);
            return new Expected(200, status, doubleCapture ? "double-capture" : "duplicate", null);
        }
        return illegal();
    }

    /** A repeat asks for the same thing when its details are those applied; a cancel without a reason names none. */
    private static boolean asksTheSame(OrderEvent event, String asked, String applied) {
        return switch (event) {
            case SHIP -> Objects.equals(asked, applied);
            case CANCEL -> asked == null || Objects.equals(asked, applied);
            default -> true;
        };
    }

    private Expected illegal() {
        return new Expected(409, status, null, "illegal-transition");
    }

    OrderStatus status() {
        return status;
    }

    List<OrderEvent> events() {
        return moves.stream().map(Move::event).toList();
    }
}
