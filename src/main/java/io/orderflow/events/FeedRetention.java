package io.orderflow.events;

import io.orderflow.common.Db;
import io.orderflow.common.Lifecycle;
import io.orderflow.common.MicrosecondClock;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import org.jboss.logging.Logger;

/**
 * Retention of the feed: events older than {@link EventsConfig#retention()} leave it from its start, a batch per
 * statement (each a short transaction: no long lock), and the former outbox's rows with them. What the events are
 * rendered from stays: history rows and side events are the orders' own history ({@code GET /orders/{id}/events}). The position purged through is kept
 * ({@code event_cursors 'retention'}), so a reader whose cursor is older is told (410), never silently moved on.
 */
@ApplicationScoped
public class FeedRetention {

    private static final Logger LOG = Logger.getLogger(FeedRetention.class);

    /**
     * One batch from the feed's start, up to the first event within retention: deleted with what it was rendered
     * from, and the purged position moved on.
     */
    private static final String PURGE = "with c as (select position from event_cursors where name = 'retention'),"
            + " batch as (select position, at from event_feed where position > (select position from c)"
            + " order by position limit :batch), stop as (select min(position) as p from batch where at >= :cutoff),"
            + " gone as (delete from event_feed f using batch b where f.position = b.position and b.position <"
            + " coalesce((select p from stop), 9223372036854775807) returning f.position, f.kind, f.ref),"

            + " legacy as (delete from legacy_outbox l using gone g where g.kind = 'l' and l.seq = g.ref),"
            + " moved as (update event_cursors set position = greatest(position, (select max(position) from gone)),"
            + " updated_at = :now where name = 'retention' and exists (select 1 from gone))"
            + " select cast(count(*) as int) from gone";

    private final Db db;
    private final EventsConfig config;
    private final Lifecycle lifecycle;
    private final MicrosecondClock time;

    public FeedRetention(Db db, EventsConfig config, Lifecycle lifecycle, MicrosecondClock time) {
        this.db = db;
        this.config = config;
        this.lifecycle = lifecycle;
        this.time = time;
    }

    @Scheduled(every = "${events.purge.every:60s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            delayed = "10s")
    Uni<Void> scheduled() {
        if (!lifecycle.running()) {
            return Uni.createFrom().voidItem();
        }
        return purge().onFailure().recoverWithItem(failure -> {
            lifecycle.runFailed(LOG, "Feed purge failed, next run retries", failure);
            return 0;
        }).replaceWithVoid();
    }

    /** Purges every event past retention; returns how many. */
    public Uni<Integer> purge() {
        Instant now = time.now();
        return drain(now.minus(config.retention()), now, 0);
    }

    private Uni<Integer> drain(Instant cutoff, Instant now, int done) {
        int batch = config.purge().batchSize();
        return db.background(session -> session.createNativeQuery(PURGE, Integer.class).setParameter("batch", batch)
                .setParameter("cutoff", cutoff).setParameter("now", now).getSingleResult())
                .chain(n -> n < batch ? Uni.createFrom().item(done + n) : drain(cutoff, now, done + n));
    }
}
