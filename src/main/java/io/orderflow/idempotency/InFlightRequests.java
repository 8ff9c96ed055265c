package io.orderflow.idempotency;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
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
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Keyed requests running on this replica right now, and for {@code idempotency.replica.linger} after they answered.
 * A repeat that arrives meanwhile is answered with the first copy's answer the moment it exists, instead of polling
 * Redis for it every 15 ms or finding Redis not yet written (copies that land on other replicas still meet at Redis).
 * Only a shortcut: the answer it hands over is the one the layers produced and stored — so a repeat with another
 * body waits for it too, and is refused by comparing with the body PostgreSQL accepted, never with a guess. When the
 * first copy ends without an answer (a failure that stored nothing, a cancelled request) or takes longer than the
 * in-flight wait, the repeat goes through the layers itself.
 *
 * <p>How long an answer stays depends on whether its key was new. A first answer stays for {@code linger}, long
 * enough for a repeat right behind it (Redis is written off the response path), and short enough to die in the
 * young generation; so does a new key's state-machine duplicate (the order had already taken the event), which is
 * that key's first answer though it is marked replayed for the client. An answer that was itself a repeat's (its
 * key had been answered before: Redis or PostgreSQL replayed it, {@link KeyClaim#markAnsweredBefore}) stays for
 * {@code replay-linger}: a key that is asked again is usually asked again and again (a client's retry loop, a
 * retry storm), and its answer never changes. Each key's answer is then looked up in Redis once per
 * {@code replay-linger}, not once per repeat.
 *
 * <p>Bounded: at most {@code idempotency.replica.max-entries} requests run through here at once (beyond that a
 * request simply skips the shortcut), and finished answers stay within {@code max-bytes}. A finished answer keeps
 * only its fingerprint and reply: no timer of its own and nothing of its request (no captured context). A timer per
 * answer kept each request's whole context alive with it, promoted every lingering request to the old generation
 * and filled it every few seconds under load (docs/benchmarks.md).
 */
@ApplicationScoped
public class InFlightRequests {

    record Answer(String fingerprint, Reply reply, long lingerNanos) {
    }

    private record Running(String fingerprint, CompletableFuture<Reply> answer) {
    }

    private final ConcurrentHashMap<String, Running> running = new ConcurrentHashMap<>();
    private final AtomicInteger runningCount = new AtomicInteger();
    private final Cache<String, Answer> answered;
    private final long lingerNanos;
    private final long replayLingerNanos;
    private final int maxEntries;
    private final long maxBytes;

    @Inject
    public InFlightRequests(IdempotencyConfig config) {
        this(config.replica().linger(), config.replica().replayLinger(), config.replica().maxEntries(),
                config.replica().maxBytes().asLongValue());
    }

    InFlightRequests(Duration linger, Duration replayLinger, int maxEntries, long maxBytes) {
        this.lingerNanos = maxBytes > 0 ? linger.toNanos() : 0;
        this.replayLingerNanos = maxBytes > 0 ? replayLinger.toNanos() : 0;
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
        // expired and evicted in Caffeine's own maintenance, run by the thread that touches the cache
        this.answered = Caffeine.newBuilder().expireAfter(Expiry.<String, Answer>writing((id, a) -> Duration.ofNanos(
                a.lingerNanos()))).maximumWeight(Math.max(maxBytes, 1)).weigher(InFlightRequests::weight)
                .executor(Runnable::run).build();
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
            // looked up after the running copies: a copy leaves them only once its answer is here
            Answer done = answered.getIfPresent(id);
            if (done != null) {
                return Uni.createFrom().item(() -> joined.apply(done.fingerprint(), done.reply()));
            }
            if (runningCount.incrementAndGet() > maxEntries) {
                runningCount.decrementAndGet();
                // full: this copy goes through the layers as a copy on another replica would
                return Uni.createFrom().deferred(work::get);
            }
            Running mine = new Running(claim.fingerprint(), new CompletableFuture<>());
            first = running.putIfAbsent(id, mine);
            if (first == null) {
                return Uni.createFrom().<Reply>deferred(work::get).onTermination()
                        .invoke((reply, failure, cancelled) -> finished(id, mine, claim, reply, failure));
            }
            runningCount.decrementAndGet();
        }
        Running holder = first;
        return onThisContext(Uni.createFrom().completionStage(holder.answer()).ifNoItem().after(wait).fail())
                .onItemOrFailure().transformToUni((reply, failure) -> failure != null
                        ? work.get()
                        : Uni.createFrom().item(() -> joined.apply(holder.fingerprint(), reply)));
    }

    /** How many requests this replica holds right now (running or lingering). */
    long held() {
        answered.cleanUp();
        return runningCount.get() + answered.estimatedSize();
    }

    private void finished(String id, Running mine, KeyClaim claim, Reply reply, Throwable failure) {
        // an answer no store may keep (a payment credential) is handed to the copies running beside it, no more;
        // the replay linger goes by the key (answered before), not by the Idempotent-Replayed header, which a new
        // key's duplicate verdict carries too: those are first answers, and a 10 s stay promoted every one of them
        long stay = reply == null || reply.isNoStore() ? 0
                : claim.wasAnsweredBefore() ? replayLingerNanos : lingerNanos;
        Answer answer = stay == 0 ? null : new Answer(mine.fingerprint(), reply, stay);
        if (answer != null && weight(id, answer) <= maxBytes) {
            answered.put(id, answer);
        }
        if (running.remove(id, mine)) {
            runningCount.decrementAndGet();
        }
        if (reply != null) {
            mine.answer().complete(reply);
        } else {
            mine.answer().completeExceptionally(failure != null ? failure : new CancellationException());
        }
    }

    /** What a lingering answer costs the heap, about: its body, its id, and the entry around them. */
    static int weight(String id, Answer answer) {
        return answer.reply().body().length + 2 * id.length() + ENTRY_BYTES;
    }

    /** Objects around a lingering answer (the entry, its id, fingerprint and reply), measured with a histogram. */
    static final int ENTRY_BYTES = 400;

    /** Continues on the waiting request's own event loop, not on the first copy's (nor on a timer thread). */
    private static <T> Uni<T> onThisContext(Uni<T> uni) {
        Context context = Vertx.currentContext();
        return context == null ? uni : uni.emitOn(task -> context.runOnContext(ignored -> task.run()));
    }
}
