package io.orderflow.events;

import java.time.Instant;
import java.util.UUID;

/**
 * An event as its consumers take it: its feed position (0 when read outside the feed, by order), CloudEvent id and
 * type, its order, when it happened, the CloudEvent JSON (structured mode), rendered once, and the trace context of
 * the request that made it, as stored ({@code TraceContext}; null when untraced).
 */
public record FeedEvent(long position, UUID id, String type, UUID orderId, Instant time, String json, String trace) {
}
