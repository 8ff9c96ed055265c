package io.orderflow.events;

import io.orderflow.common.Db;
import io.orderflow.common.PostgresArrays;
import io.orderflow.common.ResendSafety;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;
import org.hibernate.reactive.mutiny.Mutiny;

/**
 * The outbox table as the relay, the feed and the purge use it. The rows are written by the changes' own statements
 * ({@link OrderEventsParticipant}, {@link RefundEvents}); this class only claims, publishes, pages and purges them.
 */
@ApplicationScoped
public class Outbox {

    /**
     * The advisory lock a relay round holds from its claim to its commit: one round at a time, across every replica.
     * Rounds taking turns keep each order's events in order without locking their rows or asking, for every
     * candidate, whether an older event of its order is still held elsewhere (what the claim did when rounds ran
     * side by side: a row lock written per claimed event and an index on the unpublished events by order, one more
     * entry written by every transition). A round takes it with a try: a replica whose turn it is not skips.
     */
    public static final long RELAY_LOCK = 0x6f75_7462_6f79L;

    /**
     * The advisory lock under which positions are drawn and committed: a relay holds it from drawing its batch's
     * positions to its commit, so positions become visible in their own order and a feed reader that has seen
     * position n will never find a smaller one appear later. Under {@link #RELAY_LOCK} it is never contended; it
     * states the feed's rule where the positions are drawn.
     */
    public static final long POSITION_LOCK = 0x6f75_7462_6f78L; // "outbox"

    /** An unpublished event claimed by a relay: its id, its order, its CloudEvent JSON and how long it has waited. */
    public record Claimed(String id, String aggregateId, String payload, double ageSeconds) {
    }

    /** An event as the feed serves it: its position and its CloudEvent JSON. */
    public record Published(long position, String payload) {
    }

    private final Db db;

    public Outbox(Db db) {
        this.db = db;
    }

    /**
     * Takes {@link #RELAY_LOCK} for the caller's transaction and returns up to {@code limit} unpublished events,
     * oldest first; null when another relay holds the lock. An order's events are in their order here: a
     * transition waits for the previous one of its order to commit (the order's row), so a later event is never
     * visible while an earlier one is not.
     */
    Uni<List<Claimed>> claim(Mutiny.StatelessSession session, int limit) {
        return session.<Object[]>createNativeQuery("select l.held, cast(o.id as text), o.aggregateid,"
                + " cast(o.payload as text), cast(extract(epoch from clock_timestamp() - o.created_at) as float8)"
                + " from (select pg_try_advisory_xact_lock(:lock) as held) l left join lateral (select * from outbox"
                + " where l.held and published_at is null order by seq limit :limit) o on true")
                .setParameter("lock", RELAY_LOCK).setParameter("limit", limit).getResultList()
                .map(rows -> !(Boolean) rows.get(0)[0] ? null : rows.stream().filter(row -> row[1] != null)
                        .map(row -> new Claimed((String) row[1], (String) row[2], (String) row[3],
                                ((Number) row[4]).doubleValue()))
                        .toList());
    }

    /**
     * Marks the claimed events published and gives them their feed positions, in their outbox order, under
     * {@link #POSITION_LOCK} (held until the caller's transaction commits).
     */
    Uni<Integer> markPublished(Mutiny.StatelessSession session, List<Claimed> events, Instant at) {
        String ids = PostgresArrays.literal(events.stream().map(event -> (Object) event.id()).toList());
        return session.createNativeQuery("select cast(pg_advisory_xact_lock(:lock) as text)")
                .setParameter("lock", POSITION_LOCK).getSingleResult()
                .chain(() -> session.createNativeQuery("update outbox o set position = p.position, published_at = :at"
                        + " from (select s.id, nextval('outbox_position') as position from (select id from outbox"
                        + " where id = any(cast(cast(:ids as text) as uuid[])) order by seq) s) p where o.id = p.id")
                        .setParameter("ids", ids).setParameter("at", at).executeUpdate());
    }

    /** Up to {@code limit} published events after position {@code after}, in position order. */
    public Uni<List<Published>> after(long after, int limit) {
        return db.run(ResendSafety.READ, session -> session.<Object[]>createNativeQuery("select position,"
                + " cast(payload as text) from outbox where position > :after order by position limit :limit")
                .setParameter("after", after).setParameter("limit", limit).getResultList())
                .map(rows -> rows.stream()
                        .map(row -> new Published(((Number) row[0]).longValue(), (String) row[1])).toList());
    }

    /**
     * Deletes those of the {@code batch} oldest published events (in feed order) that were published before
     * {@code cutoff}; returns how many. Positions are drawn in publishing order, so the oldest events lead the feed's
     * index and no index on the publishing time is needed: one fewer index entry written per published event.
     */
    Uni<Integer> purge(Instant cutoff, int batch) {
        return db.run(session -> session.createNativeQuery("delete from outbox o using (select id from outbox"
                + " where id in (select f.id from (select id, published_at from outbox where position is not null"
                + " order by position limit :batch) f where f.published_at < :cutoff) for update skip locked) old"
                + " where o.id = old.id").setParameter("cutoff", cutoff).setParameter("batch", batch)
                .executeUpdate());
    }
}
