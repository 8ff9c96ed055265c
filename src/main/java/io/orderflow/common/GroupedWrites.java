package io.orderflow.common;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.quarkus.vertx.core.runtime.context.VertxContextSafetyToggle;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Group commit for one kind of write: while {@code maxInFlight} statements of one shape are already at PostgreSQL,
 * the writes that arrive queue up and leave together, as ONE multi-row statement and one commit. The queue is
 * bounded ({@code maxWaiting}: a write beyond it is refused at once) and every waiting write has a deadline
 * ({@code maxWait}: past it, it is refused and never sent), both answered as load shedding answers, 503 with
 * Retry-After: the database's own shedding counts the statements sent, not the writes waiting here. Nothing waits for
 * a timer: at low load every write goes at once, alone, as its own single statement, so its latency is unchanged;
 * under load a batch is what arrived while the previous statements ran.
 *
 * <p>Correctness does not depend on the batch: the caller's batch statement treats each row on its own, two writes
 * with one identity (one order, one idempotency key) never share a batch (the later one waits for the next), and a
 * batch that fails on one row's values (a constraint or data error) is re-run write by write as single statements.
 * Any other failure (a timeout, a lost connection, overload) is every write's answer, as it would have been alone:
 * re-running one slow batch as one statement per row would multiply the load exactly when PostgreSQL is slow. A
 * re-run must be safe even when the failed batch did commit: the kinds that use this are the ones whose repeat is
 * recognised (a moved order meets its idempotency record or the duplicate verdict, a stored record is found as the
 * winner). Callers sort a batch's rows by their lock key, so two batches in flight never deadlock.
 *
 * @param <S> the statement shape: writes of one shape can share a statement
 * @param <T> what one write contributes to a batch statement
 * @param <R> one write's result
 */
public final class GroupedWrites<S, T, R> {

    private static final Logger LOG = Logger.getLogger(GroupedWrites.class);

    /** Runs a batch of two or more writes of {@code shape}, distinct by identity, as one statement. */
    public interface BatchStatement<S, T, R> {

        /** @return each write's result by its identity; a write missing from the map gets null */
        Uni<Map<Object, R>> run(S shape, List<T> writes);
    }

    /**
     * One write waiting for its batch: how to run it alone, where its result goes, and the moment past which it is
     * no longer sent ({@link System#nanoTime()}).
     */
    private record Waiting<T, R>(Object identity, T write, Supplier<Uni<R>> alone, Context context,
            UniEmitter<? super R> result, long deadline) {
    }

    private final String kind;
    private final BatchStatement<S, T, R> batchStatement;
    private final IntSupplier maxRows;
    private final IntSupplier maxInFlight;
    private final IntSupplier maxWaiting;
    private final Supplier<Duration> maxWait;
    private final Map<Shed, Counter> shed = new EnumMap<>(Shed.class);
    private final Map<S, Lane> lanes = new ConcurrentHashMap<>();
    private final DistributionSummary rows;
    private final Counter fallbacks;
    private final Map<Failure, Counter> failures = new EnumMap<>(Failure.class);

    /**
     * Why a batch statement failed, counted in {@code <metrics>.failures{kind}}. Only a failure one row can cause is
     * worth re-running the rows one by one: the others would fail alone too, and re-running them would turn one slow
     * statement into one per row exactly when PostgreSQL is slow.
     */
    enum Failure {
        /** A constraint or data error (SQLSTATE class 23 or 22): one row's values; the others may succeed alone. */
        ROW,
        /** Refused before it left (load shedding). */
        SHED,
        /** No answer in time: the statement may still run, and commit. */
        TIMEOUT,
        /** The connection broke and the statement could not be sent again (see {@link ResendPolicy}). */
        CONNECTION,
        /** Anything else (a deadlock, a serialization failure, a bug): answered as it is. */
        OTHER;

        static Failure of(Throwable failure) {
            Throwable cause = ProblemMapper.unwrap(failure);
            if (DatabaseFailures.isRowRefused(cause)) {
                return ROW;
            }
            if (cause instanceof ProblemException) {
                return SHED;
            }
            if (DatabaseFailures.isTimeout(cause)) {
                return TIMEOUT;
            }
            return DatabaseFailures.connectionLost(cause) ? CONNECTION : OTHER;
        }
    }

    /** Why a write was refused before it was sent, counted in {@code <metrics>.shed{why}}. */
    enum Shed {
        /** Its lane's queue held {@code maxWaiting} writes already. */
        FULL,
        /** It waited {@code maxWait} for its batch. */
        DEADLINE
    }

    /**
     * @param metrics the meters' name prefix: {@code <metrics>.rows}, {@code .fallbacks}, {@code .failures},
     *        {@code .shed} and {@code .waiting}
     * @param kind what is written, in plural, for the meters' descriptions ("transitions")
     * @param maxWaiting how many writes a lane's queue holds; beyond it a write is refused at once (503)
     * @param maxWait how long a write waits for its batch; past it, it is refused (503) and never sent
     */
    public GroupedWrites(String metrics, String kind, BatchStatement<S, T, R> batchStatement, IntSupplier maxRows,
            IntSupplier maxInFlight, IntSupplier maxWaiting, Supplier<Duration> maxWait, MeterRegistry registry) {
        this.kind = kind;
        this.batchStatement = batchStatement;
        this.maxRows = maxRows;
        this.maxInFlight = maxInFlight;
        this.maxWaiting = maxWaiting;
        this.maxWait = maxWait;
        for (Shed why : Shed.values()) {
            shed.put(why, Counter.builder(metrics + ".shed").tag("why", why.name().toLowerCase(Locale.ROOT))
                    .description("Writes refused (503) before they were sent: a full queue, or a wait past its deadline: "
                            + kind).register(registry));
        }
        this.rows = DistributionSummary.builder(metrics + ".rows")
                .description("Rows written by one statement under group commit: " + kind).register(registry);
        this.fallbacks = Counter.builder(metrics + ".fallbacks")
                .description("Batches that failed and were re-run one by one: " + kind).register(registry);
        for (Failure why : Failure.values()) {
            failures.put(why, Counter.builder(metrics + ".failures").tag("kind", why.name().toLowerCase(Locale.ROOT))
                    .description("Batch statements that failed, by why: " + kind).register(registry));
        }
        Gauge.builder(metrics + ".waiting", this, GroupedWrites::waiting)
                .description("Writes queued for their batch: " + kind).register(registry);
    }

    /**
     * @param identity what two writes of one batch must not share (an order's id, a key)
     * @param write what this write contributes to a batch statement
     * @param alone this write's own single statement, used for a batch of one and after a batch's failure
     */
    public Uni<R> submit(S shape, Object identity, T write, Supplier<Uni<R>> alone) {
        Lane lane = lanes.computeIfAbsent(shape, Lane::new);
        return Uni.createFrom().emitter(emitter -> {
            Duration wait = maxWait.get();
            Context context = Vertx.currentContext();
            Waiting<T, R> waiting = new Waiting<>(identity, write, alone, context, emitter, System.nanoTime()
                    + wait.toNanos());
            if (!lane.add(waiting, maxWaiting.getAsInt())) {
                refuse(waiting, Shed.FULL);
                return;
            }
            drain(lane);
            if (context != null && lane.waiting() > 0) {
                // it may be waiting, and no batch may leave for a while (the statements in flight wait on locks):
                // its deadline fires on its own (a write that left at once, as at low load, needs no timer)
                context.owner().setTimer(Math.max(1, wait.toMillis()), fired -> expire(lane));
            }
        });
    }

    /** The writes of {@code lane} past their deadline leave its queue, refused; none of them is sent. */
    private void expire(Lane lane) {
        lane.expired(System.nanoTime()).forEach(waiting -> refuse(waiting, Shed.DEADLINE));
    }

    /** A 503 with Retry-After, as load shedding answers: nothing of the write was sent, so a retry is safe. */
    private void refuse(Waiting<T, R> waiting, Shed why) {
        shed.get(why).increment();
        String detail = why == Shed.FULL ? "Too many " + kind + " are waiting for the database; retry shortly"
                : "The database did not take this write in time; nothing was written: retry shortly";
        deliver(waiting, null, new ProblemException(Problem.of(ProblemType.SERVICE_UNAVAILABLE, detail), "1"));
    }

    private double waiting() {
        return lanes.values().stream().mapToInt(Lane::waiting).sum();
    }

    private void drain(Lane lane) {
        expire(lane);
        for (List<Waiting<T, R>> batch = lane.take(); batch != null; batch = lane.take()) {
            rows.record(batch.size());
            if (batch.size() == 1) {
                Waiting<T, R> only = batch.get(0);
                onItsOwnContext(only.context(), only.alone()).subscribe().with(item -> {
                    lane.done();
                    deliver(only, item, null);
                    drain(lane);
                }, failure -> {
                    lane.done();
                    deliver(only, null, failure);
                    drain(lane);
                });
                continue;
            }
            List<Waiting<T, R>> sent = batch;
            if (LOG.isDebugEnabled()) {
                LOG.debugf("A batch of %d %s left: %s", sent.size(), kind,
                        sent.stream().map(Waiting::identity).toList());
            }
            onItsOwnContext(sent.get(0).context(),
                    () -> batchStatement.run(lane.shape, sent.stream().map(Waiting::write).toList()))
                    .subscribe().with(results -> {
                lane.done();
                sent.forEach(waiting -> deliver(waiting, results.get(waiting.identity()), null));
                drain(lane);
            }, failure -> {
                lane.done();
                Failure why = Failure.of(failure);
                failures.get(why).increment();
                if (why == Failure.ROW) {
                    fallbacks.increment();
                    LOG.debugf("A batch of %d %s failed (%s); running them one by one", sent.size(), kind,
                            failure.toString());
                    sent.forEach(waiting -> onItsOwnContext(waiting.context(), waiting.alone()).subscribe()
                            .with(item -> deliver(waiting, item, null), error -> deliver(waiting, null, error)));
                } else {
                    // each write alone would have failed the same way: answered as that failure (a 503 with
                    // Retry-After), not multiplied into one statement per row while PostgreSQL is slow or away
                    sent.forEach(waiting -> deliver(waiting, null, failure));
                }
                drain(lane);
            });
        }
    }

    /**
     * Starts a statement on a new duplicated context of {@code like}'s event loop. Statements start from the
     * completion of others (the next batch leaves when one returns), and Hibernate Reactive keeps a context's open
     * session in the context: started on the returning statement's context, the next one would join its session,
     * whose result processing is still under way (LifecycleModelTest caught that as 500s).
     */
    private static <X> Uni<X> onItsOwnContext(Context like, Supplier<Uni<X>> statement) {
        if (like == null) {
            return Uni.createFrom().deferred(statement::get);
        }
        Context own = VertxContext.createNewDuplicatedContext(like);
        VertxContextSafetyToggle.setContextSafe(own, true);
        // deferred: a supplier that throws before returning its Uni fails this statement, which frees its lane
        return Uni.createFrom().emitter(emitter -> own.runOnContext(ignored -> Uni.createFrom()
                .deferred(statement::get).subscribe().with(emitter::complete, emitter::fail)));
    }

    /** On the write's own event loop, as if its statement had been its own. */
    private void deliver(Waiting<T, R> waiting, R item, Throwable failure) {
        Runnable complete = () -> {
            if (failure != null) {
                waiting.result().fail(failure);
            } else {
                waiting.result().complete(item);
            }
        };
        if (waiting.context() == null) {
            complete.run();
        } else {
            waiting.context().runOnContext(ignored -> complete.run());
        }
    }

    /** The queue of one statement shape, and how many of its statements are at PostgreSQL. */
    private final class Lane {

        private final S shape;
        private final ArrayDeque<Waiting<T, R>> queue = new ArrayDeque<>();
        private int inFlight;

        Lane(S shape) {
            this.shape = shape;
        }

        /** False, adding nothing, when the queue already holds {@code max} writes. */
        synchronized boolean add(Waiting<T, R> waiting, int max) {
            if (queue.size() >= max) {
                return false;
            }
            queue.add(waiting);
            return true;
        }

        /** Takes the writes whose deadline has passed out of the queue. */
        synchronized List<Waiting<T, R>> expired(long now) {
            List<Waiting<T, R>> expired = new ArrayList<>();
            for (Iterator<Waiting<T, R>> it = queue.iterator(); it.hasNext();) {
                Waiting<T, R> waiting = it.next();
                if (now - waiting.deadline() >= 0) {
                    expired.add(waiting);
                    it.remove();
                }
            }
            return expired;
        }

        /** The next batch (distinct identities, oldest first), or null when none may leave now. */
        synchronized List<Waiting<T, R>> take() {
            if (queue.isEmpty() || inFlight >= maxInFlight.getAsInt()) {
                return null;
            }
            List<Waiting<T, R>> batch = new ArrayList<>();
            Set<Object> identities = new HashSet<>();
            int limit = maxRows.getAsInt();
            for (Iterator<Waiting<T, R>> it = queue.iterator(); it.hasNext() && batch.size() < limit;) {
                Waiting<T, R> waiting = it.next();
                if (identities.add(waiting.identity())) {
                    batch.add(waiting);
                    it.remove();
                }
            }
            inFlight++;
            return batch;
        }

        synchronized void done() {
            inFlight--;
        }

        synchronized int waiting() {
            return queue.size();
        }
    }
}
