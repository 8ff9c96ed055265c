package io.orderflow.order.persistence;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.Db;
import io.orderflow.common.GroupedWrites;
import io.orderflow.common.PostgresArrays;
import io.orderflow.common.ResendSafety;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Group commit of first-time transitions ({@link GroupedWrites}): while {@link Config#maxInFlight()} statements of
 * one shape are already at PostgreSQL, the transitions that arrive queue up and leave together, as ONE multi-row
 * statement ({@link TransitionSql} reading {@link TransitionSource#ARRAYS}) and one commit; at low load each goes at
 * once, alone, as the single-order statement.
 *
 * <p>Correctness does not depend on the batch: each row's compare-and-set is its own, guards included (the payment
 * attempt and amount a provider's report names), two transitions of one order never share a batch (the later one
 * waits for the next), a batch's rows go in order id order (the order its row locks are taken in), and a batch that
 * fails on one row's values is re-run row by row as single statements; a timeout or a lost connection is every row's
 * answer, as it would have been alone (see {@link GroupedWrites}).
 */
@ApplicationScoped
public class GroupCommit {

    @ConfigMapping(prefix = "orders.group-commit")
    public interface Config {

        /**
         * Whether concurrent first-time transitions are sent to PostgreSQL together. On, because it saves PostgreSQL
         * CPU per ship under load and adds no latency at low load: docs/benchmarks.md has the figures, which each
         * benchmark run updates and a comment here would not.
         */
        @WithDefault("true")
        boolean enabled();

        /** Most orders moved by one statement. */
        @WithDefault("64")
        int maxRows();

        /**
         * Statements of one shape at PostgreSQL at once; further transitions queue for the next batch. Fewer make
         * bigger batches and spend less of PostgreSQL's CPU per order (docs/benchmarks.md measures it); 2 rather
         * than 1, so that one batch waiting on a row lock does not hold up every transition of its kind.
         */
        @WithDefault("2")
        int maxInFlight();

        /**
         * Transitions of one shape waiting for their batch; one more is refused at once with 503 and Retry-After
         * (the database's shedding, {@code orders.database.max-pending}, counts statements sent, not these).
         */
        @WithDefault("1024")
        int maxWaiting();

        /** The longest a transition waits for its batch; past it, it is refused with 503 and never sent. */
        @WithDefault("2s")
        Duration maxWait();
    }

    /** The lock key of a batch's row: its order's id. */
    private static final Comparator<Map<String, Object>> BY_ORDER = Comparator.comparing(row -> (UUID) row.get("id"));

    private final Db db;
    private final Config config;
    private final GroupedWrites<TransitionSql.Statement, Map<String, Object>, Object[]> writes;

    public GroupCommit(Db db, Config config, MeterRegistry registry) {
        this.db = db;
        this.config = config;
        this.writes = new GroupedWrites<>("orderflow.transitions.batch", "transitions", this::run, config::maxRows,
                config::maxInFlight, config::maxWaiting, config::maxWait, registry);
    }

    public boolean enabled() {
        return config.enabled();
    }

    /**
     * @param values the row's value for each of the statement's columns
     * @param alone the single-order statement for this transition, used for a batch of one and after a failure
     * @return the statement's row for this order ({@code moved, row, history}), or null when there is no such order
     */
    Uni<Object[]> submit(TransitionSql.Statement statement, UUID orderId, Map<String, Object> values,
            Supplier<Uni<Object[]>> alone) {
        return writes.submit(statement, orderId, values, alone);
    }

    private Uni<Map<Object, Object[]>> run(TransitionSql.Statement statement, List<Map<String, Object>> arrived) {
        // rows lock their orders in the order they come: sorted, two batches in flight (or two replicas' batches)
        // that share orders lock them alike and never deadlock
        List<Map<String, Object>> batch = arrived.stream().sorted(BY_ORDER).toList();
        // each row's compare-and-set is its own, so the batch is re-sent on a broken connection like a single one
        return db.run(ResendSafety.GUARDED, session -> {
            var query = session.createNativeQuery(statement.sql(),
                    session.getResultSetMapping(Object[].class, OrderEntity.TRANSITION_BATCH_OUTCOME));
            for (TransitionSql.Column column : statement.columns()) {
                List<Object> values = new ArrayList<>(batch.size());
                for (Map<String, Object> row : batch) {
                    values.add(row.get(column.name()));
                }
                query.setParameter("b_" + column.name(), PostgresArrays.literal(values));
            }
            query.setParameter("event", statement.event());
            return query.getResultList();
        }).map(found -> {
            Map<Object, Object[]> byOrder = new HashMap<>();
            for (Object[] row : found) {
                byOrder.put(UUID.fromString((String) row[0]),
                        row[2] == null ? null : new Object[] { row[1], row[2], row[3] });
            }
            return byOrder;
        });
    }
}
