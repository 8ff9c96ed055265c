package io.orderflow.order.domain;

import java.time.Instant;

/**
 * One applied move in an order's history. {@code seq} equals the order's version after the move; {@code source}
 * says which door it came in by (api, or a payment provider's name), {@code actor} who made it (a token's subject,
 * a provider's name, {@code reconciler}; null for API moves recorded before actors were kept), {@code requestKey}
 * which request (idempotency key or provider event id), when known, and {@code details} what the event was applied
 * with (null for moves recorded before details were kept, and where a reader did not need them).
 */
public record Transition(int seq, OrderEvent event, OrderStatus from, OrderStatus to, Instant at, String source,
        String actor, String requestKey, EventDetails details) {
}
