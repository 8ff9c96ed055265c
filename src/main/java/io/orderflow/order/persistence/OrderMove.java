package io.orderflow.order.persistence;

import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.OrderEvent;
import java.util.UUID;

/**
 * One order's move as the transition statement ({@link OrderRepository#transition}) checks and writes it: what the
 * compare-and-set is guarded by, and what the history row records. The service builds it from its command, so that
 * persistence knows what it stores and not where a request came from.
 *
 * @param details the event's details: the fields the move sets and requires, and the history row's {@code details}
 * @param expectedVersion the version the order must have (If-Match), or null
 * @param owner the customer the order must belong to, or null for any
 * @param source the history row's {@code source}
 * @param actor the history row's {@code actor}
 * @param requestKey the history row's {@code request_key}, or null
 * @param trace the history row's {@code trace}: the W3C trace context of the request, or null when untraced
 */
public record OrderMove(UUID orderId, OrderEvent event, EventDetails details, Long expectedVersion, String owner,
        String source, String actor, String requestKey, String trace) {
}
