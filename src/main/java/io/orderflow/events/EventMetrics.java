package io.orderflow.events;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The events' series, all registered at startup so that an alert has a value to read before the first event: how
 * far the feed and the stream are behind, events published per way out, failed rounds, events a consumer lost to
 * retention.
 */
// @Startup: created with the application, not with the sequencer's first round, which may come after readiness
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

    /** The consumers of the feed that can fall behind its retention, as the {@code consumer} label says. */
    public enum Consumer {
        STREAM("redis-stream"), WEBHOOKS("webhooks");

        final String label;

        Consumer(String label) {
            this.label = label;
        }
    }

    private final AtomicReference<Double> feedLag = new AtomicReference<>(0.0);
    private final AtomicReference<Double> streamLag = new AtomicReference<>(0.0);
    private final Map<Way, Counter> published;
    private final Map<Consumer, Counter> expired;
    private final Counter relayFailures;
    private final Counter sequencerFailures;
    private final Counter rewinds;

    public EventMetrics(MeterRegistry registry) {
        Gauge.builder("orderflow.events.feed.lag.seconds", feedLag, AtomicReference::get)
                .description("Age of the oldest committed event the sequencer had not given a feed position yet"
                        + " (0 when none)")
                .register(registry);
        Gauge.builder("orderflow.events.stream.lag.seconds", streamLag, AtomicReference::get)
                .description("Age of the oldest feed event not yet appended to the Redis Stream (0 when none)")
                .register(registry);
        this.published = Map.of(Way.STREAM, published(registry, Way.STREAM), Way.FEED, published(registry, Way.FEED));
        this.expired = Map.of(Consumer.STREAM, expired(registry, Consumer.STREAM), Consumer.WEBHOOKS,
                expired(registry, Consumer.WEBHOOKS));
        this.relayFailures = Counter.builder("orderflow.events.relay.failures")
                .description("Relay rounds to the Redis Stream that failed (PostgreSQL or Redis); the stream catches"
                        + " up from its cursor")
                .register(registry);
        this.sequencerFailures = Counter.builder("orderflow.events.sequencer.failures")
                .description("Sequencer rounds that failed; their events get positions in a later round")
                .register(registry);
        this.rewinds = Counter.builder("orderflow.events.stream.rewinds")
                .description("Times the relay found the Redis Stream without entries it had appended (a failover"
                        + " or a restart lost them) and appended them again")
                .register(registry);
    }

    private static Counter published(MeterRegistry registry, Way way) {
        return Counter.builder("orderflow.events.published").tag("way", way.label)
                .description("Events put into the Redis Stream (redis-stream) or served by GET /events (feed)")
                .register(registry);
    }

    private static Counter expired(MeterRegistry registry, Consumer consumer) {
        return Counter.builder("orderflow.events.expired").tag("consumer", consumer.label)
                .description("Events a consumer never received because retention purged them first")
                .register(registry);
    }

    void feedLag(double seconds) {
        feedLag.set(Math.max(0, seconds));
    }

    void streamLag(double seconds) {
        streamLag.set(Math.max(0, seconds));
    }

    void published(Way way, int count) {
        published.get(way).increment(count);
    }

    /** {@code count} events {@code consumer} will never receive. */
    public void expired(Consumer consumer, long count) {
        expired.get(consumer).increment(count);
    }

    void relayFailed() {
        relayFailures.increment();
    }

    void sequencerFailed() {
        sequencerFailures.increment();
    }

    void rewound() {
        rewinds.increment();
    }
}
