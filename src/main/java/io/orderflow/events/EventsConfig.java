package io.orderflow.events;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Order events: the outbox, its relay to the Redis Stream, the feed and the retention of published rows. */
@ConfigMapping(prefix = "events")
public interface EventsConfig {

    /** The CloudEvents {@code source} of every event this service emits. */
    @WithDefault("/orderflow")
    String source();

    /** How long a published event stays in the outbox (and so in the feed) before it is purged. */
    @WithDefault("7d")
    Duration retention();

    Redis redis();

    Relay relay();

    Purge purge();

    Webhooks webhooks();

    interface Redis {

        /** The stream the relay appends events to, one entry per event with the single field {@code event}. */
        @WithDefault("orderflow.order-events")
        String stream();

        /** The stream is trimmed to about this many entries ({@code XADD ... MAXLEN ~}). */
        @WithDefault("1000000")
        long maxLength();
    }

    interface Relay {

        /**
         * How often the relay looks for unpublished events ({@code off} stops it, e.g. in round-trip counts); shorter
         * means events leave sooner, and more relay rounds compete with the transitions for PostgreSQL.
         */
        @WithDefault("1s")
        String every();

        /**
         * Most events claimed by one relay transaction. A full round is followed by another at once, so this sizes
         * the transactions and does not cap the rate.
         */
        @WithDefault("500")
        int batchSize();
    }

    interface Purge {

        /** How often each replica deletes published events past {@link EventsConfig#retention()} ({@code off}). */
        @WithDefault("60s")
        String every();

        /** Most events deleted by one purge statement. */
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

        /** How often the worker looks for deliveries that are due ({@code off} stops it). */
        @WithDefault("1s")
        String every();

        /** Most deliveries one worker round sends at once. */
        @WithDefault("50")
        int batchSize();

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
