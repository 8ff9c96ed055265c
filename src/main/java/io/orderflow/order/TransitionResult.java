package io.orderflow.order;

import io.orderflow.order.domain.Order;

/** The order after a transition request, and whether this request moved it ({@code applied}) or found it done. */
public record TransitionResult(Order order, boolean applied) {
}
