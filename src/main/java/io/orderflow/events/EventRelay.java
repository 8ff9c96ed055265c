package io.orderflow.events;

import io.orderflow.common.Db;
import io.orderflow.common.Lifecycle;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.PeriodicJob;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.stream.ReactiveStreamCommands;
import io.quarkus.redis.datasource.stream.XAddArgs;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.hibernate.reactive.mutiny.Mutiny;

/**
 * Publishes the outbox to the Redis Stream, at least once and in order per order, from every replica. One round is
 * one transaction, and one round runs at a time across the replicas ({@link Outbox#RELAY_LOCK}, taken with a try: a
 * replica whose turn it is not skips): claim the oldest unpublished events, up to
 * {@link EventsConfig.Relay#batchSize()}, {@code XADD} each (one order's one after another, different orders'
 * together), then mark them published with their feed positions and commit. A crash between the XADD and the commit
 * leaves the rows unpublished, so a relay sends them again: consumers deduplicate on the CloudEvent id. A full round
 * is followed by another at once; a round that found fewer than a batch ends the run, and what committed since waits
 * for the next one: under a steady stream of events, rounds of a few rows each, one after the other, would cost
 * PostgreSQL more per event than the transitions writing them (measured with pgbench: a relay claiming whatever was
 * there in a loop halved the transitions' rate, one round per 200 ms cost them about a tenth). What else must commit
 * with the marking (a webhook delivery owed per subscriber) rides in the round's transaction
 * ({@link PublishedEventsParticipant}).
 */
@ApplicationScoped
public class EventRelay {

    /** Rounds per scheduled run at most, so that a run under a steady stream of events ends and the next starts. */
    static final int MAX_ROUNDS = 50;

    private final Db db;
    private final Outbox outbox;
    private final EventsConfig config;
    private final EventMetrics metrics;
    private final Lifecycle lifecycle;
    private final MicrosecondClock time;
    private final ReactiveStreamCommands<String, String, String> stream;
    private final XAddArgs trimmed;
    private final List<PublishedEventsParticipant> participants;
    private PeriodicJob periodic;

    public EventRelay(Db db, Outbox outbox, EventsConfig config, EventMetrics metrics, Lifecycle lifecycle,
            MicrosecondClock time, ReactiveRedisDataSource redis, @Any Instance<PublishedEventsParticipant> participants) {
        this.db = db;
        this.outbox = outbox;
        this.config = config;
        this.metrics = metrics;
        this.lifecycle = lifecycle;
        this.time = time;
        this.stream = redis.stream(String.class, String.class, String.class);
        this.trimmed = new XAddArgs().maxlen(config.redis().maxLength()).nearlyExactTrimming();
        this.participants = participants.stream().toList();
    }

    void start(@Observes StartupEvent event, Vertx vertx) {
        periodic = PeriodicJob.start(vertx, EventRelay.class, config.relay().every(), this::scheduled,
                "Event relay round failed, its events stay in the outbox for the next one");
    }

    void stop(@Observes ShutdownEvent event) {
        periodic.stop();
    }

    /** Not while the application starts or shuts down: a round would race the closing pool for nothing. */
    Uni<Void> scheduled() {
        if (!lifecycle.running()) {
            return Uni.createFrom().voidItem();
        }
        return relay().onFailure().invoke(metrics::relayFailed).replaceWithVoid();
    }

    /** Relays rounds while they are full (at most {@link #MAX_ROUNDS}); returns how many events went out. */
    public Uni<Integer> relay() {
        return rounds(0, 0);
    }

    private Uni<Integer> rounds(int done, int published) {
        return round().chain(n -> n < config.relay().batchSize() || done + 1 >= MAX_ROUNDS
                ? Uni.createFrom().item(published + n)
                : rounds(done + 1, published + n));
    }

    private Uni<Integer> round() {
        return db.transaction(session -> outbox.claim(session, config.relay().batchSize()).chain(claimed -> {
            if (claimed == null) {
                return Uni.createFrom().item(0); // another replica's round
            }
            metrics.lag(claimed.isEmpty() ? 0 : claimed.get(0).ageSeconds());
            if (claimed.isEmpty()) {
                return Uni.createFrom().item(0);
            }
            Instant now = time.now();
            return append(claimed).chain(() -> outbox.markPublished(session, claimed, now))
                    .chain(() -> participate(session, claimed, now)).replaceWith(claimed.size());
        }));
    }

    private Uni<Void> participate(Mutiny.StatelessSession session, List<Outbox.Claimed> claimed, Instant now) {
        List<UUID> ids = claimed.stream().map(event -> UUID.fromString(event.id())).toList();
        Uni<Void> chain = Uni.createFrom().voidItem();
        for (PublishedEventsParticipant participant : participants) {
            chain = chain.chain(() -> participant.published(session, ids, now));
        }
        return chain;
    }

    /**
     * One XADD per event: the events of one order one after the other, in their order (XADDs sent together may
     * take different connections and land in any order), those of different orders together.
     */
    private Uni<Void> append(List<Outbox.Claimed> events) {
        Map<String, List<Outbox.Claimed>> byOrder = events.stream()
                .collect(Collectors.groupingBy(Outbox.Claimed::aggregateId, LinkedHashMap::new, Collectors.toList()));
        List<Uni<Void>> orders = byOrder.values().stream().map(this::appendInTurn).toList();
        return Uni.join().all(orders).andFailFast()
                .invoke(() -> metrics.published(EventMetrics.Way.STREAM, events.size())).replaceWithVoid();
    }

    private Uni<Void> appendInTurn(List<Outbox.Claimed> events) {
        Uni<Void> chain = Uni.createFrom().voidItem();
        for (Outbox.Claimed event : events) {
            chain = chain.chain(() -> stream.xadd(config.redis().stream(), trimmed, Map.of("event", event.payload()))
                    .replaceWithVoid());
        }
        return chain;
    }
}
