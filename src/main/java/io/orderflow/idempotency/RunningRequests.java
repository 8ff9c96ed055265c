package io.orderflow.idempotency;

import io.orderflow.common.Reply;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Keyed requests running on this replica right now, and for {@code idempotency.replica.linger} after they answered.
 * A repeat that arrives meanwhile is answered with the first copy's answer the moment it exists, instead of polling
 * Redis for it every 15 ms or finding Redis not yet written (copies that land on other replicas still meet at Redis).
 * Only a shortcut: the answer it hands over is the one the layers produced and stored — so a repeat with another
 * body waits for it too, and is refused by comparing with the body PostgreSQL accepted, never with a guess. When the
 * first copy ends without an answer (a failure that stored nothing, a cancelled request) or takes longer than the
 * in-flight wait, the repeat goes through the layers itself. Bounded by {@code idempotency.replica.max-entries} and
 * {@code max-bytes}: beyond them requests simply skip the shortcut.
 */
@ApplicationScoped
public class RunningRequests {

    private record Running(String fingerprint, CompletableFuture<Reply> answer) {
    }

    private final ConcurrentHashMap<String, Running> running = new ConcurrentHashMap<>();
    private final AtomicInteger held = new AtomicInteger();
    private final AtomicLong lingeringBytes = new AtomicLong();
    private final Duration linger;
    private final int maxEntries;
    private final long maxBytes;

    @Inject
    public RunningRequests(IdempotencyConfig config) {
        this(config.replica().linger(), config.replica().maxEntries(), config.replica().maxBytes().asLongValue());
    }

    RunningRequests(Duration linger, int maxEntries, long maxBytes) {
        this.linger = linger;
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
    }

    /**
     * @param work the request's way through the layers; run when no copy of it runs here
     * @param joined turns the first copy's fingerprint and answer into this copy's answer (or a refusal)
     * @param wait how long a repeat waits for the first copy before it takes {@code work} itself
     */
    Uni<Reply> runOrJoin(KeyClaim claim, Supplier<Uni<Reply>> work, BiFunction<String, Reply, Reply> joined,
            Duration wait) {
        String id = claim.scope() + '\n' + claim.key();
        Running first = running.get(id);
        if (first == null) {
            if (held.incrementAndGet() > maxEntries) {
                held.decrementAndGet();
                // full: this copy goes through the layers as a copy on another replica would
                return Uni.createFrom().deferred(work::get);
            }
            Running mine = new Running(claim.fingerprint(), new CompletableFuture<>());
            first = running.putIfAbsent(id, mine);
            if (first == null) {
                return Uni.createFrom().<Reply>deferred(work::get).onTermination()
                        .invoke((reply, failure, cancelled) -> finished(id, mine, reply, failure));
            }
            held.decrementAndGet();
        }
        Running holder = first;
        return onThisContext(Uni.createFrom().completionStage(holder.answer()).ifNoItem().after(wait).fail())
                .onItemOrFailure().transformToUni((reply, failure) -> failure != null
                        ? work.get()
                        : Uni.createFrom().item(() -> joined.apply(holder.fingerprint(), reply)));
    }

    /** How many requests this replica holds right now (running or lingering). */
    int held() {
        return held.get();
    }

    private void finished(String id, Running mine, Reply reply, Throwable failure) {
        if (reply == null) {
            forget(id, mine, 0);
            mine.answer().completeExceptionally(failure != null ? failure : new CancellationException());
            return;
        }
        mine.answer().complete(reply);
        // the answer stays here a moment, within the byte budget: a repeat right behind it does not have to wait
        // for Redis to be written (which happens off the response path)
        long bytes = reply.body().length;
        if (linger.isZero() || lingeringBytes.addAndGet(bytes) > maxBytes) {
            if (!linger.isZero()) {
                lingeringBytes.addAndGet(-bytes);
            }
            forget(id, mine, 0);
        } else {
            Uni.createFrom().voidItem().onItem().delayIt().by(linger)
                    .subscribe().with(ignored -> forget(id, mine, bytes));
        }
    }

    private void forget(String id, Running mine, long bytes) {
        if (running.remove(id, mine)) {
            held.decrementAndGet();
        }
        lingeringBytes.addAndGet(-bytes);
    }

    /** Continues on the waiting request's own event loop, not on the first copy's (nor on a timer thread). */
    private static <T> Uni<T> onThisContext(Uni<T> uni) {
        Context context = Vertx.currentContext();
        return context == null ? uni : uni.emitOn(task -> context.runOnContext(ignored -> task.run()));
    }
}
