package io.orderflow.order.persistence;

import static io.orderflow.common.Db.ts;

import io.orderflow.common.Db;
import io.orderflow.idempotency.DedupRecord;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.order.domain.OrderTransitions;
import io.orderflow.order.domain.Transition;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * Orders in PostgreSQL. Writes are single statements: a data-modifying CTE makes the order change, its history
 * row and (when the request is keyed) its dedup record one atomic unit in one round trip.
 */
@ApplicationScoped
public class OrderRepository {

    private static final String INSERT_ORDER = "insert into orders (id, customer_id, status, version, currency, "
            + "amount, items, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $8)";
    private static final int INSERT_PARAMS = 8;

    /** The compare-and-set: the status guard plus the version the caller observed. */
    private static final String CAS = "with moved as ("
            + " update orders set status = $2, version = $3, updated_at = $4, payment_provider = $5,"
            + " payment_txn_id = $6, paid_at = $7, refunded_at = $8, carrier = $9, tracking_number = $10,"
            + " shipped_at = $11, delivered_at = $12, cancel_reason = $13, cancelled_at = $14"
            + " where id = $1 and status = $15 and version = $16 returning id, version),"
            + " history as (insert into order_transitions (order_id, seq, event, from_status, to_status, at, source,"
            + " request_key) select id, version, $17, $15, $2, $4, $18, $19 from moved)";
    private static final int CAS_PARAMS = 19;

    private static final String FIND_FOR_EVENT = "select o.*, case when o.status = any($2) then null else"
            + " array(select t.event || ' ' || t.from_status || ' ' || t.to_status from order_transitions t"
            + " where t.order_id = o.id order by t.seq) end as steps from orders o where o.id = $1";

    private final Db db;

    public OrderRepository(Db db) {
        this.db = db;
    }

    public Uni<Order> find(UUID id) {
        return db.execute("select * from orders where id = $1", Tuple.of(id))
                .map(rows -> rows.size() == 0 ? null : OrderRows.order(rows.iterator().next()));
    }

    /**
     * The order as a transition sees it, in one round trip: the row, and its history only when {@code event} cannot
     * apply to the status it has now (a duplicate or an illegal request, which the history tells apart). The
     * history comes as {@code event from to} triples ordered by seq; PostgreSQL skips the subquery otherwise.
     *
     * @return null when there is no such order
     */
    public Uni<Snapshot> findForEvent(UUID id, OrderEvent event) {
        String[] sources = OrderTransitions.sourcesOf(event).stream().map(Enum::name).toArray(String[]::new);
        return db.execute(FIND_FOR_EVENT, Tuple.of(id, sources)).map(rows -> {
            if (rows.size() == 0) {
                return null;
            }
            Row row = rows.iterator().next();
            return new Snapshot(OrderRows.order(row), OrderRows.steps(row.getArrayOfStrings("steps")));
        });
    }

    /** An order and, when it was needed and read with it, its history (oldest first); otherwise null. */
    public record Snapshot(Order order, List<Transition> history) {
    }

    public Uni<List<Transition>> history(UUID id) {
        return db.execute("select * from order_transitions where order_id = $1 order by seq", Tuple.of(id))
                .map(rows -> map(rows, OrderRows::transition));
    }

    /** Stores a new order, and its dedup record in the same statement when {@code dedup} is given. */
    public Uni<Void> insert(Order order, DedupRecord dedup) {
        List<Object> params = new ArrayList<>(Arrays.asList(order.id(), order.customerId(), order.status().name(),
                order.version(), order.currency(), order.amount(), OrderRows.itemsJson(order.items()),
                ts(order.createdAt())));
        String sql = INSERT_ORDER;
        if (dedup != null) {
            sql = "with created as (" + INSERT_ORDER + " returning id) "
                    + DedupRecord.insertSql(INSERT_PARAMS, "created");
            params.addAll(dedup.params());
        }
        return db.execute(sql, Tuple.from(params)).replaceWithVoid();
    }

    /**
     * Moves {@code expected} to {@code next} only if the row still has {@code expected}'s status and version;
     * appends {@code transition} to the history and writes {@code dedup} in the same statement.
     *
     * @return true when the row moved; false when another request moved it first (nothing was written)
     */
    public Uni<Boolean> compareAndSet(Order expected, Order next, Transition transition, DedupRecord dedup) {
        Order.Payment p = next.payment();
        Order.Shipment s = next.shipment();
        Order.Cancellation c = next.cancellation();
        List<Object> params = new ArrayList<>(Arrays.asList(next.id(), next.status().name(), next.version(),
                ts(next.updatedAt()),
                p == null ? null : p.provider(), p == null ? null : p.providerTxnId(),
                p == null ? null : ts(p.paidAt()), p == null ? null : ts(p.refundedAt()),
                s == null ? null : s.carrier(), s == null ? null : s.trackingNumber(),
                s == null ? null : ts(s.shippedAt()), s == null ? null : ts(s.deliveredAt()),
                c == null ? null : c.reason(), c == null ? null : ts(c.cancelledAt()),
                expected.status().name(), expected.version(),
                transition.event().name(), transition.source(), transition.requestKey()));
        String sql = CAS;
        if (dedup != null) {
            sql += ", dedup as (" + DedupRecord.insertSql(CAS_PARAMS, "moved") + ")";
            params.addAll(dedup.params());
        }
        sql += " select count(*) as moved from moved";
        return db.execute(sql, Tuple.from(params)).map(rows -> rows.iterator().next().getLong("moved") == 1);
    }

    /** One keyset page, oldest first; {@code after} is the last id of the previous page. */
    public Uni<List<Order>> page(String customerId, OrderStatus status, UUID after, int limit) {
        StringBuilder sql = new StringBuilder("select * from orders where true");
        List<Object> params = new ArrayList<>();
        if (customerId != null) {
            params.add(customerId);
            sql.append(" and customer_id = $").append(params.size());
        }
        if (status != null) {
            params.add(status.name());
            sql.append(" and status = $").append(params.size());
        }
        if (after != null) {
            params.add(after);
            sql.append(" and id > $").append(params.size());
        }
        params.add(limit);
        sql.append(" order by id limit $").append(params.size());
        return db.execute(sql.toString(), Tuple.from(params)).map(rows -> map(rows, OrderRows::order));
    }

    private static <T> List<T> map(RowSet<Row> rows, java.util.function.Function<Row, T> mapper) {
        List<T> out = new ArrayList<>(rows.size());
        for (Row row : rows) {
            out.add(mapper.apply(row));
        }
        return out;
    }
}
