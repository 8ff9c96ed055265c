package io.orderflow.events;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * Order events: the feed PostgreSQL keeps (its sequencer and retention), the relay to the Redis Stream, and the
 * webhooks' dispatch.
 */
@ConfigMapping(prefix = "events")
public interface EventsConfig {

    /** The CloudEvents {@code source} of every event this service emits. */
    @WithDefault("/orderflow")
    String source();

    /**
     * How long an event stays in the feed; a reader whose cursor is older gets 410 Gone. The events of an order stay
     * readable from its history ({@code GET /orders/{id}/events}).
     */
    @WithDefault("7d")
    Duration retention();

    Sequencer sequencer();

    Redis redis();

    Relay relay();

    Purge purge();

    Webhooks webhooks();

    interface Sequencer {

        /**
         * How often committed events are given their feed positions ({@code off} stops it, e.g. in round-trip
         * counts): the feed, the stream and webhooks follow it. A round is one short transaction.
         */
        @WithDefault("250ms")
        String every();

        /** Most events given positions by one round; a full round is followed by another at once. */
        @WithDefault("2000")
        int batchSize();
    }

    interface Redis {

        /** The stream the relay appends events to: one entry per event, fields {@code event} and {@code position}. */
        @WithDefault("orderflow.order-events")
        String stream();

        /**
         * How long entries stay in the stream ({@code XTRIM MINID}): size Redis' memory for it (about 1.5 KB an
         * event). Never trims past the last entry the relay appended.
         */
        @WithDefault("24h")
        Duration retention();
    }

    interface Relay {

        /** How often the relay appends the feed's new events to the Redis Stream ({@code off} stops it). */
        @WithDefault("250ms")
        String every();

        /** Most events appended by one round (one pipelined batch); a full round is followed by another at once. */
        @WithDefault("500")
        int batchSize();

        /** How long one replica keeps the relay's turn without renewing it: another takes over after it. */
        @WithDefault("10s")
        Duration lease();

        /**
         * How long a round waits for each answer of Redis before it fails, and the next round starts again from the
         * cursor. Shorter than the lease, so that a round stuck on a Redis that stopped answering (a partition keeps
         * the connection open) ends before its turn runs out. The client's own {@code quarkus.redis.timeout} bounds
         * only blocking calls, not the relay's.
         */
        @WithDefault("5s")
        Duration redisTimeout();
    }

    interface Purge {

        /** How often each replica purges what retention let go: the feed's old events, webhook logs. */
        @WithDefault("60s")
        String every();

        /** Most rows deleted by one purge statement (a short transaction each). */
        @WithDefault("1000")
        int batchSize();
    }

    /** Deliveries of the events to the URLs operators register ({@code io.orderflow.webhooks}). */
    interface Webhooks {

        /**
         * Lets a webhook URL name a loopback, private, link-local or otherwise internal address: for development and
         * tests only, never in production (the address rule is what keeps a URL from reaching inside the cluster).
         */
        @WithDefault("false")
        boolean allowPrivateTargets();

        /** How long one delivery may take, connecting to the last byte read; longer is a failure. */
        @WithDefault("15s")
        Duration timeout();

        /** Most bytes of an answer read; the rest is not waited for (the status alone decides). */
        @WithDefault("65536")
        int maxResponseBytes();

        /** How long a rotated secret keeps signing beside the new one. */
        @WithDefault("24h")
        Duration rotationOverlap();

        /**
         * How often the dispatcher reads the feed's new events, hands them to its endpoints and sends the retries that
         * are due ({@code off} stops it).
         */
        @WithDefault("250ms")
        String every();

        /** Most retries one round sends. */
        @WithDefault("200")
        int batchSize();

        /** Most endpoints enabled at once; registering or enabling one more is refused (409). */
        @WithDefault("500")
        int maxEnabledEndpoints();

        /** Deliveries in flight at once on one replica, across its endpoints. */
        @WithDefault("256")
        int maxInFlight();

        /**
         * Deliveries in flight at once to one endpoint (never two of one order): a receiver that hangs holds at most
         * this many of the replica's slots until it is paused.
         */
        @WithDefault("8")
        int maxInFlightPerEndpoint();

        /**
         * Failed attempts in a row after which an endpoint's new events wait (its cursor stops) while its retries
         * probe it, with the retries' backoff; a success resumes it.
         */
        @WithDefault("5")
        int pauseAfter();

        /** How long one replica keeps an endpoint without renewing: another takes it over after that. */
        @WithDefault("30s")
        Duration lease();

        /** Newest events a replica keeps in memory for the endpoints that keep up ({@link FeedTail}). */
        @WithDefault("5000")
        int window();

        /** How long the delivery log (attempts) and settled deliveries are kept. */
        @WithDefault("30d")
        Duration retention();

        Retry retry();

        interface Retry {

            /** The first retry's delay; each next one triples, with jitter, up to {@link #maxDelay()}. */
            @WithDefault("5s")
            Duration firstDelay();

            @WithDefault("6h")
            Duration maxDelay();

            /**
             * A delivery failing this long after its event is given up (FAILED); an endpoint failing this long
             * without a success is disabled until an operator enables it.
             */
            @WithDefault("3d")
            Duration giveUpAfter();
        }
    }
}
