package io.orderflow.idempotency;

import io.orderflow.common.Lifecycle;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Retention of dedup records. Rows past their expiry are marked EXPIRED (a late retry then gets a clear refusal
 * and is never executed again); EXPIRED rows are deleted only after a further grace period. One-time submit tokens
 * are refused once expired and deleted after the same grace, as soon as no dedup record keyed by them remains.
 * Works in batches with {@code FOR UPDATE SKIP LOCKED}, so every replica may sweep at once without conflicts or
 * double work.
 */
@ApplicationScoped
public class IdempotencySweeper {

    private static final Logger LOG = Logger.getLogger(IdempotencySweeper.class);

    public record Swept(int expired, int purged, int tokensPurged) {
    }

    private final IdempotencyRepository repository;
    private final OneTimeTokens tokens;
    private final IdempotencyConfig config;

    private final Lifecycle lifecycle;

    public IdempotencySweeper(IdempotencyRepository repository, OneTimeTokens tokens, IdempotencyConfig config,
            Lifecycle lifecycle) {
        this.lifecycle = lifecycle;
        this.repository = repository;
        this.tokens = tokens;
        this.config = config;
    }

    /** Not while the application starts or shuts down: a sweep would race the closing pool for nothing. */
    @Scheduled(every = "${idempotency.sweeper.every:60s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            delayed = "10s")
    Uni<Void> scheduled() {
        if (!lifecycle.running()) {
            return Uni.createFrom().voidItem();
        }
        return sweep().invoke(swept -> {
            if (swept.expired() + swept.purged() + swept.tokensPurged() > 0) {
                LOG.infof("Idempotency sweep: %d marked EXPIRED, %d purged, %d submit tokens purged", swept.expired(),
                        swept.purged(), swept.tokensPurged());
            }
        }).onFailure().recoverWithItem(failure -> {
            lifecycle.runFailed(LOG, "Idempotency sweep failed, next run retries", failure);
            return null;
        }).replaceWithVoid();
    }

    /** One full sweep: batches until nothing is due. */
    public Uni<Swept> sweep() {
        int batch = config.sweeper().batchSize();
        Duration grace = config.retention().purgeGrace();
        return drain(() -> repository.expireDue(batch), batch, 0)
                .chain(expired -> drain(() -> repository.purgeExpired(grace, batch), batch, 0)
                        .chain(purged -> drain(() -> tokens.purgeExpired(grace, batch), batch, 0)
                                .map(tokensPurged -> new Swept(expired, purged, tokensPurged))));
    }

    private static Uni<Integer> drain(Supplier<Uni<Integer>> step, int batch, int done) {
        return step.get().chain(n -> n < batch ? Uni.createFrom().item(done + n) : drain(step, batch, done + n));
    }
}
