package io.orderflow.order.persistence;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.common.Db;
import io.orderflow.common.ResendSafety;
import io.orderflow.common.SameStatementWrite;
import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderField;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.order.domain.Transition;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.criteria.CriteriaBuilder;
import jakarta.persistence.criteria.CriteriaQuery;
import jakarta.persistence.criteria.Predicate;
import jakarta.persistence.criteria.Root;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.hibernate.reactive.mutiny.Mutiny;

/**
 * Orders in PostgreSQL, through Hibernate Reactive. Reads are HQL and criteria queries on the entities; the writes
 * are single native statements, one round trip each: a data-modifying CTE makes the order change, its history row
 * and whatever must commit with it (the request's idempotency record, payment rows) one atomic unit.
 */
@ApplicationScoped
public class OrderRepository {

    private static final TypeReference<List<HistoryEntry>> HISTORY = new TypeReference<>() {
    };

    private final Db db;
    private final GroupCommit groupCommit;
    private final OrderMapping mapping;
    private final ObjectMapper json;

    public OrderRepository(Db db, GroupCommit groupCommit, OrderMapping mapping, ObjectMapper json) {
        this.db = db;
        this.groupCommit = groupCommit;
        this.mapping = mapping;
        this.json = json;
    }

    /** @return null when there is no such order */
    public Uni<Order> find(UUID id) {
        return db.run(ResendSafety.READ, session -> session.get(OrderEntity.class, id)).map(e -> e == null ? null : mapping.toOrder(e));
    }

    public Uni<List<Transition>> history(UUID id) {
        return db.run(ResendSafety.READ, session -> session.createNamedQuery(TransitionEntity.HISTORY, TransitionEntity.class).setParameter("id", id).getResultList())
                .map(rows -> rows.stream().map(mapping::toTransition).toList());
    }

    /** One keyset page, oldest first; {@code after} is the last id of the previous page. Filters are optional. */
    public Uni<List<Order>> page(String customerId, OrderStatus status, UUID after, int limit) {
        return db.run(ResendSafety.READ, session -> {
            CriteriaBuilder cb = session.getCriteriaBuilder();
            CriteriaQuery<OrderEntity> query = cb.createQuery(OrderEntity.class);
            Root<OrderEntity> order = query.from(OrderEntity.class);
            List<Predicate> where = new ArrayList<>();
            if (customerId != null) {
                where.add(cb.equal(order.get("customerId"), customerId));
            }
            if (status != null) {
                where.add(cb.equal(order.get("status"), status.name()));
            }
            if (after != null) {
                where.add(cb.greaterThan(order.get("id"), after));
            }
            query.where(where.toArray(Predicate[]::new)).orderBy(cb.asc(order.get("id")));
            return session.createQuery(query).setMaxResults(limit).getResultList();
        }).map(rows -> rows.stream().map(mapping::toOrder).toList());
    }

    /**
     * Stores a new order and {@code writes} in one statement.
     *
     * @return the order as stored (read back from the statement, exactly what {@code writes} recorded)
     */
    public Uni<Order> insert(Order order, List<SameStatementWrite> writes) {
        StringBuilder sql = new StringBuilder("with created as (insert into orders (id, customer_id, status, version,")
                .append(" currency, amount, items, created_at, updated_at) values (:id, :customer, :status, :version,")
                .append(" :currency, :amount, cast(cast(:items as text) as jsonb), cast(:at as timestamptz),")
                .append(" cast(:at as timestamptz)) returning *)");
        for (int i = 0; i < writes.size(); i++) {
            sql.append(", write").append(i).append(" as (").append(writes.get(i).sql("created")).append(')');
        }
        sql.append(" select to_jsonb(c)::text as row from created c");
        OrderEntity row = mapping.toEntity(order);
        // a creation is always keyed (the key is required), and its statement writes the dedup record
        return db.run(ResendSafety.KEYED, session -> {
            Mutiny.SelectionQuery<String> query = session.createNativeQuery(sql.toString(),
                    session.getResultSetMapping(String.class, OrderEntity.ROW))
                    .setParameter("id", row.id).setParameter("customer", row.customerId)
                    .setParameter("status", row.status).setParameter("version", row.version)
                    .setParameter("currency", row.currency).setParameter("amount", row.amount)
                    .setParameter("items", json(row.items)).setParameter("at", row.createdAt);
            bind(query, writes);
            return query.getSingleResult();
        }).map(mapping::fromRowJson);
    }

    /**
     * The compare-and-set, in one statement (see {@link TransitionSql}): moves the order if the event applies to
     * its status (and the expected version, the owner and, for provider reports, the amount agree), appending the
     * history row and {@code writes}; otherwise changes nothing and returns the order as it stands with its
     * history. Under group commit ({@link GroupCommit}) a transition whose writes all have a batch form may share
     * its statement with other orders' transitions of its shape, guards included; its outcome is the same.
     *
     * @param moreChanges fields set besides the event's own (such as the payment attempt a PAY starts)
     * @return null when there is no such order
     */
    public Uni<Outcome> transition(OrderMove move, Instant now, List<SameStatementWrite> writes,
            Map<OrderField, Object> moreChanges) {
        Map<OrderField, Object> changes = new EnumMap<>(OrderField.class);
        changes.putAll(move.details().changes(move.event(), now));
        changes.putAll(moreChanges);
        Map<OrderField, Object> required = move.details().requires(move.event());
        EventDetails.ProviderReport report = move.details() instanceof EventDetails.ProviderReport r ? r : null;
        String details = mapping.detailsJson(move.details());
        Supplier<Uni<Object[]>> alone = () -> single(move, now, details, changes, required, report, writes);
        Uni<Object[]> row = groupCommit.enabled() && TransitionSql.batchable(writes)
                ? groupCommit.submit(TransitionSql.statement(TransitionSource.ARRAYS, move.event(), changes.keySet(),
                        required.keySet(), report != null, writes), move.orderId(),
                        batchValues(move, now, details, changes, required, report, writes), alone)
                : alone.get();
        return row.map(found -> found == null ? null : outcome(move.orderId(), found));
    }

    /** The compare-and-set of one order, in one statement of its own. */
    private Uni<Object[]> single(OrderMove move, Instant now, String details,
            Map<OrderField, Object> changes, Map<OrderField, Object> required, EventDetails.ProviderReport report,
            List<SameStatementWrite> writes) {
        String sql = TransitionSql.statement(TransitionSource.ONE_ORDER, move.event(), changes.keySet(),
                required.keySet(), report != null, writes).sql();
        return db.run(ResendSafety.GUARDED, session -> {
            Mutiny.SelectionQuery<Object[]> query = session.createNativeQuery(sql,
                    session.getResultSetMapping(Object[].class, OrderEntity.TRANSITION_OUTCOME))
                    .setParameter("id", move.orderId()).setParameter("event", move.event().name())
                    .setParameter("now", now).setParameter("owner", move.owner())
                    .setParameter("version", move.expectedVersion()).setParameter("source", move.source())
                    .setParameter("actor", move.actor()).setParameter("requestKey", move.requestKey()).setParameter("details", details)
                    .setParameter("trace", move.trace());
            changes.forEach((field, value) -> query.setParameter(TransitionSql.paramName(field), value));
            guardValues(required, report).forEach(query::setParameter);
            bind(query, writes);
            return query.getSingleResultOrNull();
        });
    }

    /** The transition's values for the batch statement's columns (see {@link TransitionSql#BASE}). */
    private static Map<String, Object> batchValues(OrderMove move, Instant now, String details,
            Map<OrderField, Object> changes, Map<OrderField, Object> required, EventDetails.ProviderReport report,
            List<SameStatementWrite> writes) {
        Map<String, Object> values = new HashMap<>();
        values.put("id", move.orderId());
        values.put("now", now);
        values.put("owner", move.owner());
        values.put("version", move.expectedVersion());
        values.put("source", move.source());
        values.put("actor", move.actor());
        values.put("request_key", move.requestKey());
        values.put("details", details);
        values.put("trace", move.trace());
        changes.forEach((field, value) -> values.put(TransitionSql.paramName(field), value));
        values.putAll(guardValues(required, report));
        writes.forEach(write -> values.putAll(write.parameters()));
        return values;
    }

    /** The values the order must hold for the move to concern it: the required fields', a report's amount. */
    private static Map<String, Object> guardValues(Map<OrderField, Object> required,
            EventDetails.ProviderReport report) {
        Map<String, Object> values = new HashMap<>();
        required.forEach((field, value) -> values.put(TransitionSql.requiredName(field), value));
        if (report != null) {
            values.put("amount", report.amount());
            values.put("currency", report.currency());
        }
        return values;
    }

    /**
     * What the transition statement found: the order after the move ({@code moved}), or as it stands with its
     * history (oldest first) when nothing moved.
     */
    public record Outcome(boolean moved, Order order, List<Transition> history) {
    }

    private Outcome outcome(UUID orderId, Object[] row) {
        Order order = mapping.fromRowJson((String) row[1]);
        if (Boolean.TRUE.equals(row[0])) {
            return new Outcome(true, order, null);
        }
        try {
            List<HistoryEntry> entries = json.readValue((String) row[2], HISTORY);
            return new Outcome(false, order, entries.stream().map(h -> h.toTransition(mapping)).toList());
        } catch (IOException e) {
            throw new UncheckedIOException("the history of order " + orderId + " is not the expected JSON", e);
        }
    }

    /** One history entry as the transition statement returns it when nothing moved. */
    record HistoryEntry(int seq, String event, String from, String to, Map<String, Object> details) {
        Transition toTransition(OrderMapping mapping) {
            OrderEvent e = OrderEvent.valueOf(event);
            return new Transition(seq, e, OrderStatus.valueOf(from), OrderStatus.valueOf(to), null, null, null, null,
                    mapping.details(e, details));
        }
    }

    private static void bind(Mutiny.SelectionQuery<?> query, List<SameStatementWrite> writes) {
        for (SameStatementWrite write : writes) {
            write.parameters().forEach(query::setParameter);
        }
    }

    private String json(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
