package io.orderflow.events;

import io.orderflow.common.Db;
import io.orderflow.common.NativeValues;
import io.orderflow.common.ResendSafety;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.hibernate.reactive.mutiny.Mutiny;

/**
 * The feed as its readers see it: pages of rendered events after a position, an order's events, and where the feed
 * stands. The feed's rows ({@code event_feed}) are narrow; each names the row its event is rendered from (a history
 * row, a side event, an event of the former outbox), so a page is one statement that joins them and
 * {@link EventRenderer} turns its rows into CloudEvents.
 */
@ApplicationScoped
public class Feed {

    /** Where the feed stands: its last position, and the position through which retention purged it. */
    public record Bounds(long head, long purgedThrough) {
    }

    /** A page: the feed's bounds when it was read, and its events after the cursor asked for, oldest first. */
    public record Page(Bounds bounds, List<FeedEvent> events) {
    }

    /**
     * The columns every event is rendered from, after the feed row's {@code position, kind, order_id}: plain
     * columns, read by key; PostgreSQL builds no JSON for them (the service renders it: {@link EventRenderer}).
     */
    private static final String SOURCES = " t.seq, t.event, t.from_status, t.to_status, t.at, t.source, t.trace,"
            + " s.id, s.type, s.at, cast(s.data as text), s.trace, cast(l.payload as text), o.customer_id,"
            + " o.currency, o.amount, cast(o.items as text), o.created_at, cast(t.snapshot as text)";

    private static final String JOINS = " left join order_transitions t on f.kind = 't' and t.order_id = f.order_id"
            + " and t.seq = f.ref left join order_side_events s on f.kind = 's' and s.id = f.ref"
            + " left join legacy_outbox l on f.kind = 'l' and l.seq = f.ref"
            + " left join orders o on f.kind <> 'l' and o.id = f.order_id";

    private static final String BOUNDS = "with c as (select (select position from event_cursors where name ="
            + " 'sequencer') as head, (select position from event_cursors where name = 'retention') as purged)";

    private static final String PAGE = BOUNDS + " select c.head, c.purged, f.position, f.kind, cast(f.order_id as text),"
            + SOURCES + " from c left join lateral (select * from event_feed where position > coalesce(cast(:after as"
            + " bigint), c.purged) and coalesce(cast(:after as bigint), c.purged) >= c.purged order by position"
            + " limit :limit) f on true" + JOINS + " order by f.position";

    /**
     * An order's events, in its own order: those of the former outbox first (by position), then its creation, its
     * transitions and its refunds' changes by the order's version each follows, a transition before the side events
     * that follow it.
     */
    private static final String OF_ORDER = "select 0, 0, coalesce(f.position, 0), f.kind, cast(f.order_id as text),"
            + SOURCES + " from (select position, order_id, kind, ref, 0 as k1, 0 as k2 from event_feed where order_id"
            + " = :id and kind = 'l' union all select null, order_id, 't', seq, seq, 1 from order_transitions where"
            + " order_id = :id and xid is not null union all select null, order_id, 's', id, order_version, 2 from"
            + " order_side_events where order_id = :id) f" + JOINS
            + " order by f.kind <> 'l', f.position, f.k1, f.k2, f.ref";

    private final Db db;
    private final EventRenderer renderer;

    public Feed(Db db, EventRenderer renderer) {
        this.db = db;
        this.renderer = renderer;
    }

    /**
     * Up to {@code limit} events after position {@code after} (null: from the oldest retained), with the feed's
     * bounds; no events when {@code after} is older than retention (the caller tells the reader).
     */
    public Uni<Page> page(Long after, int limit) {
        return db.run(ResendSafety.READ, session -> planned(session, () -> pageIn(session, after, limit)));
    }

    /** As {@link #page}, as background work (a consumer's round): not shed, not counted with the requests. */
    public Uni<Page> pageForConsumer(Long after, int limit) {
        return db.background(session -> planned(session, () -> pageIn(session, after, limit)));
    }

    /**
     * Runs {@code work} in a transaction whose statements are planned for the tables as they are now. A connection
     * keeps a statement's plan once it has run it five times; the event tables start empty and grow by thousands of
     * rows a second, so a plan kept from their first minutes reads them whole (measured: a page of the feed, 1.2 s;
     * a sequencer round, past the 5 s statement timeout, round after round) until autovacuum analyzes them. Planning
     * these statements anew costs about a millisecond.
     */
    static <T> Uni<T> planned(Mutiny.StatelessSession session, Supplier<Uni<T>> work) {
        return session.withTransaction(tx -> planAfresh(session).chain(() -> work.get()));
    }

    /** In the caller's transaction: its statements are planned for the tables as they are now (see above). */
    static Uni<Void> planAfresh(Mutiny.StatelessSession session) {
        return session.createNativeQuery("select set_config('plan_cache_mode', 'force_custom_plan', true)")
                .getSingleResult().replaceWithVoid();
    }

    private Uni<Page> pageIn(Mutiny.StatelessSession session, Long after, int limit) {
        return session.<Object[]>createNativeQuery(PAGE).setParameter("after", after).setParameter("limit", limit)
                .getResultList().map(rows -> {
                    Bounds bounds = new Bounds(NativeValues.number(rows.get(0)[0]),
                            NativeValues.number(rows.get(0)[1]));
                    return new Page(bounds, render(rows, row -> row[2] != null));
                });
    }

    /** Every event of the order, whether or not the feed has given it a position yet (position 0 then). */
    public Uni<List<FeedEvent>> ofOrder(UUID orderId) {
        return db.run(ResendSafety.READ, session -> planned(session, () -> session.<Object[]>createNativeQuery(
                OF_ORDER).setParameter("id", orderId).getResultList())).map(rows -> render(rows, row -> true));
    }

    private List<FeedEvent> render(List<Object[]> rows, Predicate<Object[]> present) {
        return rows.stream().filter(present).map(row -> renderer.render(EventRenderer.Source.of(row, 2))).toList();
    }

    /**
     * The last position whose event happened before {@code since} (at least the purged position): where a consumer
     * that lost what it held since then starts again. Positions follow the events' times closely, so a binary search
     * over them finds it in a few lookups of the feed's key.
     */
    public Uni<Long> positionAt(Instant since) {
        return page(null, 1).chain(page -> search(page.bounds().purgedThrough(), page.bounds().head(), since));
    }

    private Uni<Long> search(long before, long notBefore, Instant since) {
        if (notBefore - before <= 1) {
            return Uni.createFrom().item(before);
        }
        long middle = before + (notBefore - before) / 2;
        return db.background(session -> session.<Object>createNativeQuery("select at from event_feed"
                + " where position >= :p order by position limit 1").setParameter("p", middle).getSingleResultOrNull())
                .chain(at -> at == null || !NativeValues.instant(at).isBefore(since) ? search(before, middle, since)
                        : search(middle, notBefore, since));
    }

    /** Runs {@code work} in one transaction of background work (the sequencer's round: PostgreSQL only). */
    <T> Uni<T> transaction(Function<Mutiny.StatelessSession, Uni<T>> work) {
        return db.transaction(work);
    }
}
