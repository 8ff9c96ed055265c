package io.orderflow.order;

import io.orderflow.order.domain.Order;
import java.util.Map;

/**
 * The order after a transition request, and whether this request moved it ({@code applied}) or found it done.
 * {@code additions} are members a participant adds to the answer of the request that moved it (never stored, never
 * replayed).
 */
public record TransitionResult(Order order, boolean applied, Map<String, Object> additions) {

    public TransitionResult(Order order, boolean applied) {
        this(order, applied, Map.of());
    }
}
