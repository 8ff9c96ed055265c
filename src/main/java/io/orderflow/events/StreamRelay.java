package io.orderflow.events;

import io.orderflow.common.Db;
import io.orderflow.common.DuplicatedContexts;
import io.orderflow.common.Lifecycle;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.PeriodicJob;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.stream.ReactiveStreamCommands;
import io.quarkus.redis.datasource.stream.StreamRange;
import io.quarkus.redis.datasource.stream.XTrimArgs;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.Request;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;

/**
 * The Redis Stream as one more consumer of the feed, with a durable cursor of its own ({@code event_cursors
 * 'redis-stream'}): a round appends the events after the cursor, in feed order, as one pipelined batch, then moves
 * the cursor. Nothing is held across the call to Redis: the turn is a lease row (one replica relays at a time, and
 * another takes over when its lease runs out), and the cursor moves by compare-and-set. Redis down stops this relay
 * only; the feed and webhooks go on, and the stream catches up from its cursor when Redis is back.
 *
 * <p>At least once: a crash between the append and the cursor's move appends those events again (consumers
 * deduplicate on the CloudEvent id). And what Redis acknowledged but lost (a Sentinel failover to a replica that had
 * not received the last writes, a restart without persistence) is appended again: each round first checks that the
 * stream still ends with the last entry it appended, else it moves the cursor back to the stream's last entry.
 */
@ApplicationScoped
public class StreamRelay {

    private static final Logger LOG = Logger.getLogger(StreamRelay.class);

    /** Rounds per scheduled run at most, so that a run that keeps finding full rounds ends and the next starts. */
    static final int MAX_ROUNDS = 50;

    private static final String TAKE_TURN = "update event_cursors set leased_by = :me, lease_until = :until,"
            + " updated_at = :now where name = 'redis-stream' and (leased_by = :me or lease_until is null or"
            + " lease_until < :now) returning position, stream_last_id";

    private static final String GIVE_UP = "update event_cursors set leased_by = null, lease_until = null"
            + " where name = 'redis-stream' and leased_by = :me";

    private static final String MOVE = "update event_cursors set position = :to, stream_last_id = :last,"
            + " updated_at = :now where name = 'redis-stream' and leased_by = :me and position = :from";

    private final Db db;
    private final Feed feed;
    private final EventsConfig config;
    private final EventMetrics metrics;
    private final Lifecycle lifecycle;
    private final MicrosecondClock time;
    private final Redis redis;
    private final ReactiveStreamCommands<String, String, String> stream;
    private final String me = UUID.randomUUID().toString();
    private PeriodicJob periodic;
    private Vertx vertx;

    public StreamRelay(Db db, Feed feed, EventsConfig config, EventMetrics metrics, Lifecycle lifecycle,
            MicrosecondClock time, ReactiveRedisDataSource redis) {
        this.db = db;
        this.feed = feed;
        this.config = config;
        this.metrics = metrics;
        this.lifecycle = lifecycle;
        this.time = time;
        this.redis = redis.getRedis();
        this.stream = redis.stream(String.class, String.class, String.class);
    }

    void start(@Observes StartupEvent event, Vertx vertx) {
        this.vertx = vertx;
        periodic = PeriodicJob.start(vertx, StreamRelay.class, config.relay().every(), this::scheduled,
                "Relay to the Redis Stream failed, the stream catches up from its cursor in a later round");
    }

    /** Stops relaying and gives the turn up, so that another replica relays at once rather than after the lease. */
    void stop(@Observes ShutdownEvent event) {
        periodic.stop();
        CompletableFuture<Object> released = new CompletableFuture<>();
        DuplicatedContexts.subscribe(vertx, () -> db.background(session -> session.createNativeQuery(GIVE_UP)
                .setParameter("me", me).executeUpdate()), released::complete, released::completeExceptionally);
        try {
            released.get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.infof("The relay's turn was not given up at shutdown (%s): another replica takes it when its lease"
                    + " runs out", e.toString());
        }
    }

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

    private Uni<Integer> rounds(int done, int appended) {
        return round().chain(n -> n < config.relay().batchSize() || done + 1 >= MAX_ROUNDS
                ? Uni.createFrom().item(appended + n) : rounds(done + 1, appended + n));
    }

    /** The cursor as a round found it: where it stands and the stream id of the last entry it appended. */
    private record Turn(long position, String lastId) {
    }

    private Uni<Integer> round() {
        Instant now = time.now();
        return db.background(session -> session.<Object[]>createNativeQuery(TAKE_TURN)
                .setParameter("me", me).setParameter("until", now.plus(config.relay().lease()))
                .setParameter("now", now).getSingleResultOrNull())
                .chain(row -> row == null ? Uni.createFrom().item(0) // another replica's turn
                        : checked(new Turn(((Number) row[0]).longValue(), (String) row[1]))
                                .chain(turn -> append(turn, now)));
    }

    /**
     * The turn, moved back to the stream's last entry when the stream no longer ends with the last one appended:
     * Redis lost entries it had acknowledged, and the relay appends them again.
     */
    private Uni<Turn> checked(Turn turn) {
        if (turn.lastId() == null) {
            return Uni.createFrom().item(turn);
        }
        return answered(stream.xrevrange(config.redis().stream(), StreamRange.of("+", "-"), 1)).chain(last -> {
            if (!last.isEmpty() && compare(last.get(0).id(), turn.lastId()) >= 0) {
                return Uni.createFrom().item(turn);
            }
            metrics.rewound();
            Uni<Long> back = last.isEmpty() || last.get(0).payload().get("position") == null
                    ? feed.positionAt(time.now().minus(config.redis().retention()))
                    : Uni.createFrom().item(Long.parseLong(last.get(0).payload().get("position")));
            return back.chain(position -> {
                long to = Math.min(position, turn.position());
                LOG.warnf("The Redis Stream %s no longer holds entries the relay appended (its last is %s, the"
                        + " relay's %s): appending again from feed position %d", config.redis().stream(),
                        last.isEmpty() ? "none" : last.get(0).id(), turn.lastId(), to);
                return move(turn, to, last.isEmpty() ? null : last.get(0).id()).replaceWith(new Turn(to,
                        last.isEmpty() ? null : last.get(0).id()));
            });
        });
    }

    private Uni<Integer> append(Turn turn, Instant now) {
        return feed.pageForConsumer(turn.position(), config.relay().batchSize()).chain(page -> {
            long purged = page.bounds().purgedThrough();
            if (turn.position() < purged) {
                metrics.expired(EventMetrics.Consumer.STREAM, purged - turn.position());
                LOG.warnf("The Redis Stream relay was %d events behind the feed's retention: they were purged"
                        + " before it appended them (read them from GET /orders/{id}/events)", purged - turn.position());
                return move(turn, purged, turn.lastId()).replaceWith(0);
            }
            List<FeedEvent> events = page.events();
            metrics.streamLag(events.isEmpty() ? 0 : Duration.between(events.get(0).time(), now).toNanos() / 1e9);
            if (events.isEmpty()) {
                return Uni.createFrom().item(0);
            }
            List<Request> appends = events.stream().map(event -> Request.cmd(Command.XADD)
                    .arg(config.redis().stream()).arg("*").arg("event").arg(event.json())
                    .arg("position").arg(event.position())).toList();
            return answered(redis.batch(appends)).chain(ids -> {
                String lastId = ids.get(ids.size() - 1).toString();
                metrics.published(EventMetrics.Way.STREAM, events.size());
                return move(turn, events.get(events.size() - 1).position(), lastId)
                        .call(() -> trim(lastId, now)).replaceWith(events.size());
            });
        });
    }

    /** Moves the cursor from where the turn found it; a relay that lost its turn meanwhile moves nothing. */
    private Uni<Integer> move(Turn turn, long to, String lastId) {
        return db.background(session -> session.createNativeQuery(MOVE).setParameter("to", to)
                .setParameter("last", lastId).setParameter("now", time.now()).setParameter("me", me)
                .setParameter("from", turn.position()).executeUpdate());
    }

    /** Trims entries older than the stream's retention, never the last one appended. */
    private Uni<Long> trim(String lastId, Instant now) {
        long cutoff = Math.min(now.minus(config.redis().retention()).toEpochMilli(), millis(lastId));
        return answered(stream.xtrim(config.redis().stream(),
                new XTrimArgs().minid(cutoff + "-0").nearlyExactTrimming()));
    }

    /**
     * A call to Redis that fails after {@code events.relay.redis-timeout} without an answer: a Redis that stops
     * answering on an open connection would otherwise hold the round, and with it this replica's relay, for ever.
     */
    private <T> Uni<T> answered(Uni<T> call) {
        return call.ifNoItem().after(config.relay().redisTimeout()).fail();
    }

    /** Stream ids compared as Redis does: milliseconds, then the sequence within them. */
    static int compare(String a, String b) {
        int byMillis = Long.compare(millis(a), millis(b));
        return byMillis != 0 ? byMillis : Long.compare(sequence(a), sequence(b));
    }

    private static long millis(String id) {
        int dash = id.indexOf('-');
        return Long.parseLong(dash < 0 ? id : id.substring(0, dash));
    }

    private static long sequence(String id) {
        int dash = id.indexOf('-');
        return dash < 0 ? 0 : Long.parseLong(id.substring(dash + 1));
    }
}
