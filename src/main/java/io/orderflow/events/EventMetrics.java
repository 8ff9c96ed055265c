package io.orderflow.events;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The events' series, all registered at startup so that an alert has a value to read before the first event:
 * outbox lag, events published per way out, relay failures.
 */
// @Startup: created with the application, not with the relay's first round, which may come after readiness
@Startup
@ApplicationScoped
public class EventMetrics {

    /** The ways out of the service an event takes, as the {@code way} label says. */
    public enum Way {
        STREAM("redis-stream"), FEED("feed");

        final String label;

        Way(String label) {
            this.label = label;
        }
    }

    private final AtomicReference<Double> lag = new AtomicReference<>(0.0);
    private final Counter stream;
    private final Counter feed;
    private final Counter failures;

    public EventMetrics(MeterRegistry registry) {
        Gauge.builder("orderflow.events.outbox.lag.seconds", lag, AtomicReference::get)
                .description("Age of the oldest unpublished event the relay found in the outbox (0 when none)")
                .register(registry);
        this.stream = published(registry, Way.STREAM);
        this.feed = published(registry, Way.FEED);
        this.failures = Counter.builder("orderflow.events.relay.failures")
                .description("Relay rounds that failed (PostgreSQL or Redis); their events are published later")
                .register(registry);
    }

    private static Counter published(MeterRegistry registry, Way way) {
        return Counter.builder("orderflow.events.published").tag("way", way.label)
                .description("Events put into the Redis Stream (redis-stream) or served by GET /events (feed)")
                .register(registry);
    }

    void lag(double seconds) {
        lag.set(Math.max(0, seconds));
    }

    void published(Way way, int count) {
        (way == Way.STREAM ? stream : feed).increment(count);
    }

    void relayFailed() {
        failures.increment();
    }
}
