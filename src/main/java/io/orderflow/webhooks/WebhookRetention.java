package io.orderflow.webhooks;

import io.orderflow.common.Db;
import io.orderflow.common.Lifecycle;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.events.EventsConfig;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import org.jboss.logging.Logger;

/**
 * Retention of the webhooks' rows: the delivery log's attempts and the settled deliveries older than
 * {@link EventsConfig.Webhooks#retention()} are deleted, a batch per statement (short transactions, no long lock),
 * from every replica ({@code SKIP LOCKED}). A delivery still owed is never deleted.
 */
@ApplicationScoped
public class WebhookRetention {

    private static final Logger LOG = Logger.getLogger(WebhookRetention.class);

    private static final String ATTEMPTS = "delete from webhook_attempts where id in (select id from webhook_attempts"
            + " where at < :cutoff order by at limit :batch for update skip locked)";

    private static final String DELIVERIES = "delete from webhook_deliveries d using (select endpoint_id, event_id from"
            + " webhook_deliveries where status <> 'PENDING' and updated_at < :cutoff order by updated_at limit :batch"
            + " for update skip locked) old where d.endpoint_id = old.endpoint_id and d.event_id = old.event_id";

    private final Db db;
    private final EventsConfig config;
    private final Lifecycle lifecycle;
    private final MicrosecondClock time;

    public WebhookRetention(Db db, EventsConfig config, Lifecycle lifecycle, MicrosecondClock time) {
        this.db = db;
        this.config = config;
        this.lifecycle = lifecycle;
        this.time = time;
    }

    @Scheduled(every = "${events.purge.every:60s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            delayed = "20s")
    Uni<Void> scheduled() {
        if (!lifecycle.running()) {
            return Uni.createFrom().voidItem();
        }
        return purge().onFailure().recoverWithItem(failure -> {
            lifecycle.runFailed(LOG, "Webhook log purge failed, next run retries", failure);
            return 0;
        }).replaceWithVoid();
    }

    /** Purges every attempt and settled delivery past retention; returns how many rows. */
    public Uni<Integer> purge() {
        Instant cutoff = time.now().minus(config.webhooks().retention());
        return drain(ATTEMPTS, cutoff, 0).chain(attempts -> drain(DELIVERIES, cutoff, attempts));
    }

    private Uni<Integer> drain(String sql, Instant cutoff, int done) {
        int batch = config.purge().batchSize();
        return db.background(session -> session.createNativeQuery(sql).setParameter("cutoff", cutoff)
                .setParameter("batch", batch).executeUpdate())
                .chain(n -> n < batch ? Uni.createFrom().item(done + n) : drain(sql, cutoff, done + n));
    }
}
