package io.orderflow.model;

import io.orderflow.order.domain.ConflictVerdict;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.order.domain.OrderTransitions;
import io.orderflow.order.domain.Transition;
import java.util.ArrayList;
import java.util.List;

/**
 * An in-memory order: the transition table, the duplicate rule and the provider's transaction id, with none of
 * the service's machinery (no CAS, no dedup records, no Redis). The service must always agree with it.
 */
final class LifecycleModel {

    /** What the service should answer: a status code and, for 200, the order's status and callback outcome. */
    record Expected(int status, OrderStatus orderStatus, String outcome) {
    }

    private OrderStatus status = OrderStatus.CREATED;
    private final List<Transition> history = new ArrayList<>();
    private String capturedTxn;

    Expected apply(OrderEvent event, String txn) {
        if (OrderTransitions.allows(status, event)) {
            OrderStatus to = OrderTransitions.next(status, event).orElseThrow();
            history.add(new Transition(history.size() + 1, event, status, to, null, null, null));
            status = to;
            if (event == OrderEvent.PAYMENT_SUCCEEDED) {
                capturedTxn = txn;
            } else if (event == OrderEvent.PAY || event == OrderEvent.PAYMENT_FAILED) {
                capturedTxn = null;
            }
            return new Expected(200, status, "applied");
        }
        if (ConflictVerdict.judge(status, event, history) == ConflictVerdict.DUPLICATE) {
            boolean doubleCapture = event == OrderEvent.PAYMENT_SUCCEEDED && capturedTxn != null
                    && !capturedTxn.equals(txn);
            return new Expected(200, status, doubleCapture ? "double-capture" : "duplicate");
        }
        return new Expected(409, status, null);
    }

    OrderStatus status() {
        return status;
    }

    List<OrderEvent> events() {
        return history.stream().map(Transition::event).toList();
    }
}
