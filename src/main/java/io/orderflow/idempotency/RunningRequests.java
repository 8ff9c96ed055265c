package io.orderflow.idempotency;

import io.orderflow.common.Reply;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Keyed requests running on this replica right now, and for {@code idempotency.replica.linger} after they answered. A repeat that
 * arrives meanwhile is answered with the first copy's answer the moment it exists, instead of polling Redis for it
 * every 15 ms or finding Redis not yet written (copies that land on other replicas still meet at Redis). Only a shortcut: the answer it hands over is the one the layers
 * produced and stored, and when the first copy ends without one (a failure that stored nothing, a cancelled
 * request) or takes longer than the in-flight wait, the repeat goes through the layers itself.
 */
@ApplicationScoped
public class RunningRequests {

    private record Running(String fingerprint, CompletableFuture<Reply> answer) {
    }

    private final ConcurrentHashMap<String, Running> running = new ConcurrentHashMap<>();
    private final Duration linger;

    public RunningRequests(IdempotencyConfig config) {
        this.linger = config.replica().linger();
    }

    /**
     * @param work the request's way through the layers; run when no copy of it runs here
     * @param joined turns the first copy's fingerprint and answer into this copy's answer (or a refusal)
     * @param wait how long a repeat waits for the first copy before it takes {@code work} itself
     */
    Uni<Reply> runOrJoin(KeyClaim claim, Supplier<Uni<Reply>> work, BiFunction<String, Reply, Reply> joined,
            Duration wait) {
        String id = claim.scope() + '\n' + claim.key();
        Running mine = new Running(claim.fingerprint(), new CompletableFuture<>());
        Running first = running.putIfAbsent(id, mine);
        if (first == null) {
            return Uni.createFrom().<Reply>deferred(work::get).onTermination().invoke((reply, failure, cancelled) -> {
                if (reply != null) {
                    mine.answer().complete(reply);
                    // the answer stays here a moment: a repeat right behind it does not have to wait for Redis
                    // to be written (which happens off the response path)
                    if (linger.isZero()) {
                        running.remove(id, mine);
                    } else {
                        Uni.createFrom().voidItem().onItem().delayIt().by(linger)
                                .subscribe().with(ignored -> running.remove(id, mine));
                    }
                } else {
                    running.remove(id, mine);
                    mine.answer().completeExceptionally(failure != null ? failure : new CancellationException());
                }
            });
        }
        return onThisContext(Uni.createFrom().completionStage(first.answer()).ifNoItem().after(wait).fail())
                .onItemOrFailure().transformToUni((reply, failure) -> failure != null
                        ? work.get()
                        : Uni.createFrom().item(() -> joined.apply(first.fingerprint(), reply)));
    }

    /** Continues on the waiting request's own event loop, not on the first copy's (nor on a timer thread). */
    private static <T> Uni<T> onThisContext(Uni<T> uni) {
        Context context = Vertx.currentContext();
        return context == null ? uni : uni.emitOn(task -> context.runOnContext(ignored -> task.run()));
    }
}
