package io.orderflow.events;

import io.orderflow.common.Lifecycle;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.NativeValues;
import io.orderflow.common.PeriodicJob;
import io.orderflow.common.PostgresArrays;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.hibernate.reactive.mutiny.Mutiny;

/**
 * Gives committed events their feed positions, in commit order, from every replica, one round at a time
 * ({@link #LOCK}, taken with a try: a replica whose turn it is not skips). A round is a short transaction that talks
 * to PostgreSQL only: it finds the events committed since the last round through their writers' transaction ids,
 * orders them ({@link SequencerRound}) and inserts their feed rows with the next positions.
 *
 * <p>Why transaction ids: a row becomes visible when its transaction commits, in no order its insert can know. Every
 * transaction below the oldest still running ({@code pg_snapshot_xmin}) has ended, so the rows written by them that
 * are not in the feed yet are exactly those a round must add; the sequencer keeps that bound as its horizon and looks
 * only at rows written at or above it. Rows of transactions that ended above the horizon are added as soon as they
 * are visible and skipped by the next rounds, which find them in the feed.
 */
@ApplicationScoped
public class FeedSequencer {

    /** One round at a time, across every replica (transaction-level, taken with a try). */
    static final long LOCK = 0x6665_6564_7365_71L; // "feedseq"

    /** Rounds per scheduled run at most, so that a run that keeps finding a full round ends and the next starts. */
    static final int MAX_ROUNDS = 20;

    /**
     * Whether the feed holds the event row {@code alias} of {@code kind}: a probe of {@code event_feed_source} per
     * row, written as a scalar subquery so that the planner cannot turn it into a join that reads the whole feed.
     */
    private static String inFeed(String alias, char kind, String ref) {
        return "coalesce((select true from event_feed f where f.order_id = " + alias + ".order_id and f.kind = '" + kind
                + "' and f.ref = " + alias + "." + ref + "), false)";
    }

    /**
     * The candidates: the first event rows at or above the horizon that the feed does not hold yet, oldest writer
     * first. Each table is read in its xid index's order and stops at the limit, so that a round costs its batch,
     * not the backlog (both tables' first rows hold the first rows of their union).
     */
    static final String CANDIDATES = "with c as (select position, horizon from event_cursors"
            + " where name = 'sequencer'), tr as (select t.xid, t.order_id, 't' as kind, cast(t.seq as bigint) as ref,"
            + " cast(t.seq as bigint) as k1, 1 as k2, t.at from order_transitions t where t.xid >= (select horizon"
            + " from c) and not " + inFeed("t", 't', "seq") + " order by t.xid, t.order_id, t.seq limit :limit),"
            + " se as (select s.xid, s.order_id, 's' as kind, s.id as ref, s.order_version as k1, 2 as k2, s.at"
            + " from order_side_events s where s.xid >= (select horizon from c) and not " + inFeed("s", 's', "id")
            + " order by s.xid, s.order_id, s.order_version, s.id limit :limit)"
            + " select (select position from c), cast((select horizon from c) as text),"
            + " cast(pg_snapshot_xmin(pg_current_snapshot()) as text), cast(n.xid as text), cast(n.order_id as text),"
            + " n.kind, n.ref, n.k1, n.k2, n.at from (select 1) one left join (select * from (select * from tr"
            + " union all select * from se) u order by xid, order_id, k1, k2, ref limit :limit) n on true";

    /**
     * The events not in the feed yet, of the given orders, written at or above {@code :from}: each order's
     * transitions by its key (the primary key; {@code offset 0} keeps the planner from reading every row above
     * {@code :from} by the xid index instead), the side events among those above {@code :from}.
     */
    private static final String LATER_OF_ORDERS = "select cast(n.xid as text), cast(n.order_id as text), n.kind, n.ref,"
            + " n.k1, n.k2, n.at from (select t.xid, t.order_id, 't' as kind, cast(t.seq as bigint) as ref,"
            + " cast(t.seq as bigint) as k1, 1 as k2, t.at from unnest(cast(cast(:orders as text) as uuid[])) o(id)"
            + " cross join lateral (select * from order_transitions t where t.order_id = o.id offset 0) t"
            + " where t.xid >= cast(:from as xid8) and not " + inFeed("t", 't', "seq")
            + " union all select s.xid, s.order_id, 's', s.id,"
            + " s.order_version, 2, s.at from order_side_events s join unnest(cast(cast(:orders as text) as uuid[]))"
            + " so(id) on so.id = s.order_id where s.xid >= cast(:from as xid8) and not " + inFeed("s", 's', "id")
            + ") n";

    private static final String APPEND = "with rows as (insert into event_feed (position, order_id, kind, ref, at)"
            + " select * from unnest(cast(cast(:positions as text) as bigint[]), cast(cast(:orders as text) as uuid[]),"
            + " cast(cast(:kinds as text) as char[]), cast(cast(:refs as text) as bigint[]),"
            + " cast(cast(:ats as text) as timestamptz[])) returning 1) update event_cursors set position = :last,"
            + " horizon = cast(:horizon as xid8), updated_at = :now where name = 'sequencer'";

    private final Feed feed;
    private final EventsConfig config;
    private final EventMetrics metrics;
    private final Lifecycle lifecycle;
    private final MicrosecondClock time;
    private PeriodicJob periodic;

    public FeedSequencer(Feed feed, EventsConfig config, EventMetrics metrics, Lifecycle lifecycle,
            MicrosecondClock time) {
        this.feed = feed;
        this.config = config;
        this.metrics = metrics;
        this.lifecycle = lifecycle;
        this.time = time;
    }

    void start(@Observes StartupEvent event, Vertx vertx) {
        periodic = PeriodicJob.start(vertx, FeedSequencer.class, config.sequencer().every(), this::scheduled,
                "Feed sequencer round failed, its events get their positions in the next one");
    }

    void stop(@Observes ShutdownEvent event) {
        periodic.stop();
    }

    Uni<Void> scheduled() {
        if (!lifecycle.running()) {
            return Uni.createFrom().voidItem();
        }
        return sequence().onFailure().invoke(metrics::sequencerFailed).replaceWithVoid();
    }

    /** Runs rounds while they are full (at most {@link #MAX_ROUNDS}); returns how many events got a position. */
    public Uni<Integer> sequence() {
        return rounds(0, 0);
    }

    private Uni<Integer> rounds(int done, int sequenced) {
        return round().chain(round -> !round.full() || done + 1 >= MAX_ROUNDS
                ? Uni.createFrom().item(sequenced + round.sequenced())
                : rounds(done + 1, sequenced + round.sequenced()));
    }

    private record Outcome(int sequenced, boolean full) {
    }

    private Uni<Outcome> round() {
        int limit = config.sequencer().batchSize();
        return feed.transaction(session -> session.createNativeQuery("select pg_try_advisory_xact_lock(:lock)",
                Boolean.class).setParameter("lock", LOCK).getSingleResult().chain(held -> !held
                        ? Uni.createFrom().item(new Outcome(0, false))
                        : Feed.planAfresh(session).chain(() -> candidates(session, limit))
                                .chain(round -> decide(session, round))));
    }

    private Uni<SequencerRound> candidates(Mutiny.StatelessSession session, int limit) {
        return session.<Object[]>createNativeQuery(CANDIDATES).setParameter("limit", limit + 1).getResultList()
                .map(rows -> {
                    Object[] first = rows.get(0);
                    List<SequencerRound.Event> events = rows.stream().filter(row -> row[3] != null)
                            .map(row -> event(row, 3)).toList();
                    return new SequencerRound(NativeValues.number(first[0]), Long.parseLong((String) first[1]),
                            Long.parseLong((String) first[2]), events, limit);
                });
    }

    private Uni<Outcome> decide(Mutiny.StatelessSession session, SequencerRound round) {
        Instant now = time.now();
        metrics.feedLag(round.oldest().map(at -> Duration.between(at, now).toNanos() / 1e9).orElse(0.0));
        Uni<List<SequencerRound.Event>> later = !round.truncated() ? Uni.createFrom().item(List.of())
                : session.<Object[]>createNativeQuery(LATER_OF_ORDERS)
                        .setParameter("orders", PostgresArrays.literal(round.takenOrders()))
                        .setParameter("from", Long.toString(round.cut())).getResultList()
                        .map(rows -> rows.stream().map(row -> event(row, 0)).toList());
        return later.chain(after -> {
            SequencerRound.Decision decision = round.decide(after);
            if (decision.events().isEmpty() && decision.horizon() == round.horizon()) {
                return Uni.createFrom().item(new Outcome(0, round.truncated()));
            }
            return append(session, round.position(), decision, now)
                    .replaceWith(new Outcome(decision.events().size(), round.truncated()));
        });
    }

    private static Uni<Integer> append(Mutiny.StatelessSession session, long position,
            SequencerRound.Decision decision, Instant now) {
        List<SequencerRound.Event> events = decision.events();
        List<Object> positions = new ArrayList<>();
        for (int i = 1; i <= events.size(); i++) {
            positions.add(position + i);
        }
        return session.createNativeQuery(APPEND).setParameter("positions", PostgresArrays.literal(positions))
                .setParameter("orders", PostgresArrays.literal(events.stream().map(e -> (Object) e.orderId()).toList()))
                .setParameter("kinds", PostgresArrays.literal(events.stream().map(e -> (Object) e.kind()).toList()))
                .setParameter("refs", PostgresArrays.literal(events.stream().map(e -> (Object) e.ref()).toList()))
                .setParameter("ats", PostgresArrays.literal(events.stream().map(e -> (Object) e.at()).toList()))
                .setParameter("last", position + events.size())
                .setParameter("horizon", Long.toString(decision.horizon())).setParameter("now", now)
                .executeUpdate();
    }

    private static SequencerRound.Event event(Object[] row, int first) {
        return new SequencerRound.Event(Long.parseLong((String) row[first]), UUID.fromString((String) row[first + 1]),
                row[first + 2].toString().charAt(0), NativeValues.number(row[first + 3]),
                NativeValues.number(row[first + 4]), (int) NativeValues.number(row[first + 5]),
                NativeValues.instant(row[first + 6]));
    }
}
