package io.orderflow.events;

import io.orderflow.common.Lifecycle;
import io.orderflow.common.MicrosecondClock;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import org.jboss.logging.Logger;

/**
 * Retention of published events: once older than {@link EventsConfig#retention()} they leave the outbox (and so the
 * feed), in batches with {@code FOR UPDATE SKIP LOCKED}, so every replica may purge at once. Unpublished events are
 * never purged.
 */
@ApplicationScoped
public class OutboxPurge {

    private static final Logger LOG = Logger.getLogger(OutboxPurge.class);

    private final Outbox outbox;
    private final EventsConfig config;
    private final Lifecycle lifecycle;
    private final MicrosecondClock time;

    public OutboxPurge(Outbox outbox, EventsConfig config, Lifecycle lifecycle, MicrosecondClock time) {
        this.outbox = outbox;
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
            LOG.warnf("Outbox purge failed, next run retries: %s", failure.toString());
            return 0;
        }).replaceWithVoid();
    }

    /** Purges every published event past retention; returns how many. */
    public Uni<Integer> purge() {
        return drain(time.now().minus(config.retention()), 0);
    }

    private Uni<Integer> drain(Instant cutoff, int done) {
        int batch = config.purge().batchSize();
        return outbox.purge(cutoff, batch)
                .chain(n -> n < batch ? Uni.createFrom().item(done + n) : drain(cutoff, done + n));
    }
}
