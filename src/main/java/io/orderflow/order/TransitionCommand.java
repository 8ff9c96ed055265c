package io.orderflow.order;

import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.OrderEvent;
import java.util.UUID;

/**
 * A request to move one order, from whichever door it came in (REST call or provider callback).
 *
 * @param ifMatch the version the caller insists on (If-Match), or null
 * @param source which door it came in by: {@code api} or the payment provider's name
 * @param actor who made it, recorded in the history: the token's subject for an API call, the provider's name for
 *        its callback, {@code reconciler} for the janitor
 * @param requestKey the idempotency key or provider event id, recorded in the history; may be null
 * @param owner the customer the order must belong to, or null when the caller may act on any order
 */
public record TransitionCommand(UUID orderId, OrderEvent event, EventDetails details, Long ifMatch, String source,
        String actor, String requestKey, String owner) {

    public static final String API = "api";
}
