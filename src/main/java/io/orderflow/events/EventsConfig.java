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

    interface Redis {

        /** The stream the relay appends events to, one entry per event with the single field {@code event}. */
        @WithDefault("orderflow.order-events")
        String stream();

        /** The stream is trimmed to about this many entries ({@code XADD ... MAXLEN ~}). */
        @WithDefault("1000000")
        long maxLength();
    }

    interface Relay {

        /** How often the relay looks for unpublished events ({@code off} stops it, e.g. in round-trip counts). */
        @WithDefault("200ms")
        String every();

        /** Most events claimed by one relay transaction (at most one per order). */
        @WithDefault("100")
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
}
