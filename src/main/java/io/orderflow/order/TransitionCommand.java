package io.orderflow.order;

import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.OrderEvent;
import java.util.UUID;

/**
 * A request to move one order, from whichever door it came in (REST call or provider callback).
 *
 * @param ifMatch the version the caller insists on (If-Match), or null
 * @param source who asks: {@code api} or the payment provider's name
 * @param requestKey the idempotency key or provider event id, recorded in the history; may be null
 * @param owner the customer the order must belong to, or null when the caller may act on any order
 */
public record TransitionCommand(UUID orderId, OrderEvent event, EventDetails details, Long ifMatch, String source,
        String requestKey, String owner) {

    public static final String API = "api";
}
