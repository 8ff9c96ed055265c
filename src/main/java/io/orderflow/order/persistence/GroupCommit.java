package io.orderflow.order.persistence;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.Db;
import io.orderflow.common.Resend;
import io.orderflow.common.problem.ProblemException;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Group commit of first-time transitions: while {@link Config#maxInFlight()} statements of one shape are already at
 * PostgreSQL, the transitions that arrive queue up and leave together, as ONE multi-row statement
 * ({@link TransitionBatchSql}) and one commit. Nothing waits for a timer: at low load every transition goes at
 * once, alone, as the single-order statement, so its latency is unchanged; under load the batch is what arrived
 * while the previous statements ran.
 *
 * <p>Correctness does not depend on the batch: each row's compare-and-set is its own, two transitions of one order
 * never share a batch (the later one waits for the next), and a batch that fails for any reason but overload is
 * re-run row by row as single statements — safe even when the failed batch did commit (a timeout), because a row
 * already moved meets its own idempotency record (keyed) or the duplicate verdict (keyless), exactly like a retry.
 */
@ApplicationScoped
public class GroupCommit {

    private static final Logger LOG = Logger.getLogger(GroupCommit.class);

    @ConfigMapping(prefix = "orders.group-commit")
    public interface Config {

        /**
         * Whether concurrent first-time transitions are sent to PostgreSQL together. On: in the benchmark it cut the
         * CPU a ship costs by a third (docs/benchmarks.md) and changed nothing at low load.
         */
        @WithDefault("true")
        boolean enabled();

        /** Most orders moved by one statement. */
        @WithDefault("64")
        int maxRows();

        /**
         * Statements of one shape at PostgreSQL at once; further transitions queue for the next batch. Fewer make
         * bigger batches: 2 instead of 4 moved 5.8 instead of 3.2 orders per statement under load and cut
         * PostgreSQL's CPU per ship by a third, at no cost at low load (docs/benchmarks.md); 2 rather than 1, so
         * that one batch waiting on a row lock does not hold up every transition of its kind.
         */
        @WithDefault("2")
        int maxInFlight();
    }

    /** One transition waiting for its batch: its values by column, and how to run it alone. */
    record Row(UUID orderId, Map<String, Object> values, Supplier<Uni<Object[]>> alone, Context context,
            UniEmitter<? super Object[]> result) {
    }

    private final Db db;
    private final Config config;
    private final Map<TransitionBatchSql.Statement, Lane> lanes = new ConcurrentHashMap<>();
    private final DistributionSummary rows;
    private final Counter fallbacks;

    public GroupCommit(Db db, Config config, MeterRegistry registry) {
        this.db = db;
        this.config = config;
        this.rows = DistributionSummary.builder("orderflow.transitions.batch.rows")
                .description("Orders moved by one transition statement under group commit")
                .register(registry);
        this.fallbacks = Counter.builder("orderflow.transitions.batch.fallbacks")
                .description("Batches that failed and were re-run order by order").register(registry);
        Gauge.builder("orderflow.transitions.batch.waiting", this, GroupCommit::waiting)
                .description("Transitions queued for their batch").register(registry);
    }

    private double waiting() {
        return lanes.values().stream().mapToInt(Lane::waiting).sum();
    }

    public boolean enabled() {
        return config.enabled();
    }

    /**
     * @param values the row's value for each of the statement's columns
     * @param alone the single-order statement for this transition, used for a batch of one and after a failure
     * @return the statement's row for this order ({@code moved, row, history}), or null when there is no such order
     */
    Uni<Object[]> submit(TransitionBatchSql.Statement statement, UUID orderId, Map<String, Object> values,
            Supplier<Uni<Object[]>> alone) {
        Lane lane = lanes.computeIfAbsent(statement, Lane::new);
        return Uni.createFrom().emitter(emitter -> {
            lane.add(new Row(orderId, values, alone, Vertx.currentContext(), emitter));
            drain(lane);
        });
    }

    private void drain(Lane lane) {
        for (List<Row> batch = lane.take(); batch != null; batch = lane.take()) {
            List<Row> sent = batch;
            rows.record(sent.size());
            Uni<Map<UUID, Object[]>> outcome = sent.size() == 1
                    ? sent.get(0).alone().get().map(row -> single(sent.get(0).orderId(), row))
                    : run(lane.statement, sent);
            outcome.subscribe().with(results -> {
                lane.done();
                sent.forEach(row -> deliver(row, results.get(row.orderId()), null));
                drain(lane);
            }, failure -> {
                lane.done();
                if (sent.size() == 1 || failure instanceof ProblemException) {
                    sent.forEach(row -> deliver(row, null, failure));
                } else {
                    fallbacks.increment();
                    LOG.debugf("A batch of %d transitions failed (%s); running them one by one", sent.size(),
                            failure.toString());
                    sent.forEach(row -> row.alone().get().subscribe()
                            .with(item -> deliver(row, item, null), error -> deliver(row, null, error)));
                }
                drain(lane);
            });
        }
    }

    private static Map<UUID, Object[]> single(UUID orderId, Object[] row) {
        Map<UUID, Object[]> result = new HashMap<>();
        result.put(orderId, row);
        return result;
    }

    private Uni<Map<UUID, Object[]>> run(TransitionBatchSql.Statement statement, List<Row> batch) {
        // each row's compare-and-set is its own, so the batch is re-sent on a broken connection like a single one
        return db.run(Resend.GUARDED, session -> {
            var query = session.createNativeQuery(statement.sql(),
                    session.getResultSetMapping(Object[].class, OrderEntity.TRANSITION_BATCH_OUTCOME));
            for (TransitionBatchSql.Column column : statement.columns()) {
                List<Object> values = new ArrayList<>(batch.size());
                for (Row row : batch) {
                    values.add(row.values().get(column.name()));
                }
                query.setParameter("b_" + column.name(), TransitionBatchSql.arrayLiteral(values));
            }
            query.setParameter("event", statement.event());
            return query.getResultList();
        }).map(found -> {
            Map<UUID, Object[]> byOrder = new HashMap<>();
            for (Object[] row : found) {
                byOrder.put(UUID.fromString((String) row[0]),
                        row[2] == null ? null : new Object[] { row[1], row[2], row[3] });
            }
            return byOrder;
        });
    }

    /** On the request's own event loop, as if its statement had been its own. */
    private static void deliver(Row row, Object[] item, Throwable failure) {
        Runnable complete = () -> {
            if (failure != null) {
                row.result().fail(failure);
            } else {
                row.result().complete(item);
            }
        };
        if (row.context() == null) {
            complete.run();
        } else {
            row.context().runOnContext(ignored -> complete.run());
        }
    }

    /** The queue of one statement shape, and how many of its statements are at PostgreSQL. */
    private final class Lane {

        private final TransitionBatchSql.Statement statement;
        private final ArrayDeque<Row> queue = new ArrayDeque<>();
        private int inFlight;

        Lane(TransitionBatchSql.Statement statement) {
            this.statement = statement;
        }

        synchronized void add(Row row) {
            queue.add(row);
        }

        /** The next batch (distinct orders, oldest first), or null when none may leave now. */
        synchronized List<Row> take() {
            if (queue.isEmpty() || inFlight >= config.maxInFlight()) {
                return null;
            }
            List<Row> batch = new ArrayList<>();
            Set<UUID> orders = new HashSet<>();
            for (Iterator<Row> it = queue.iterator(); it.hasNext() && batch.size() < config.maxRows();) {
                Row row = it.next();
                if (orders.add(row.orderId())) {
                    batch.add(row);
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
