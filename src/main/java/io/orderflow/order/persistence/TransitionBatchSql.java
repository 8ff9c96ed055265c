package io.orderflow.order.persistence;

import io.orderflow.common.SameStatementWrite;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderField;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The transition statement for many orders at once (group commit): the same compare-and-set as
 * {@link TransitionSql}'s, with each order's values read from arrays ({@code unnest}), so one statement and one
 * commit move them all. Each row's CAS is independent: a row whose order is in another status, or another version,
 * simply does not move, and the statement returns it as it stands with its history, for the zero-row verdict. History
 * rows and same-statement writes (their batch form) are written for the moved rows only. The rows of one batch name
 * distinct orders; the caller guarantees it.
 */
public final class TransitionBatchSql {

    /**
     * A batch statement, the event it moves orders by ({@code :event}), and its input columns in the order of
     * {@code unnest}'s arrays ({@code :b_<name>}).
     */
    public record Statement(String sql, String event, List<Column> columns) {
    }

    /** One input column: its name (a parameter's, {@code f_<field>}, or a base one) and its SQL type. */
    public record Column(String name, String type) {
    }

    /** The columns every row has, before the fields it sets and the writes' parameters. */
    static final List<Column> BASE = List.of(new Column("id", "uuid"), new Column("now", "timestamptz"),
            new Column("owner", "text"), new Column("version", "bigint"), new Column("source", "text"),
            new Column("actor", "text"), new Column("request_key", "text"), new Column("details", "jsonb"));

    private record Shape(OrderEvent event, Set<OrderField> changed, List<String> writes) {
    }

    private static final Map<Shape, Statement> BUILT = new ConcurrentHashMap<>();

    private TransitionBatchSql() {
    }

    /** True when every write has a batch form, so a batch can carry it. */
    static boolean batchable(List<SameStatementWrite> writes) {
        return writes.stream().allMatch(write -> write.batchSql("moved", "b") != null);
    }

    /** @param changed the fields the event sets, in a stable order (an EnumMap's) */
    public static Statement statement(OrderEvent event, Set<OrderField> changed, List<SameStatementWrite> writes) {
        Shape shape = new Shape(event, Set.copyOf(changed),
                writes.stream().map(write -> write.batchSql("moved", "b")).toList());
        return BUILT.computeIfAbsent(shape, s -> build(event, changed, writes));
    }

    private static Statement build(OrderEvent event, Set<OrderField> changed, List<SameStatementWrite> writes) {
        List<Column> columns = new ArrayList<>(BASE);
        for (OrderField field : changed) {
            columns.add(new Column(TransitionSql.paramName(field), TransitionSql.type(field)));
        }
        Map<String, String> writeColumns = new TreeMap<>();
        writes.forEach(write -> writeColumns.putAll(write.parameterTypes()));
        writeColumns.forEach((name, type) -> columns.add(new Column(name, type)));

        StringBuilder sql = new StringBuilder("with rule (event, from_status, to_status, condition) as (")
                .append(TransitionSql.rules(event)).append("), b as (select ");
        for (int i = 0; i < columns.size(); i++) {
            Column column = columns.get(i);
            sql.append(i == 0 ? "" : ", ").append("cast(u.c").append(i).append(" as ").append(column.type())
                    .append(") as ").append(column.name());
        }
        sql.append(" from unnest(");
        for (int i = 0; i < columns.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("cast(cast(:b_").append(columns.get(i).name())
                    .append(" as text) as text[])");
        }
        sql.append(") as u(");
        for (int i = 0; i < columns.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append('c').append(i);
        }
        sql.append(")), moved as (update orders o set status = r.to_status, version = o.version + 1,")
                .append(" updated_at = b.now");
        for (OrderField field : changed) {
            sql.append(", ").append(TransitionSql.column(field)).append(" = b.").append(TransitionSql.paramName(field));
        }
        sql.append(" from b join rule r on r.event = :event where o.id = b.id and r.from_status = o.status")
                .append(" and (b.owner is null or o.customer_id = b.owner)")
                .append(" and (b.version is null or o.version = b.version)")
                .append(TransitionSql.conditions(event, "b." + TransitionSql.paramName(OrderField.PAYMENT_PROVIDER)))
                .append(" returning o.*, r.from_status),")
                .append(" history as (insert into order_transitions (order_id, seq, event, from_status, to_status,")
                .append(" at, source, actor, request_key, details) select m.id, m.version, :event, m.from_status,")
                .append(" m.status, b.now, b.source, b.actor, b.request_key, b.details from moved m join b on b.id = m.id)");
        for (int i = 0; i < writes.size(); i++) {
            sql.append(", write").append(i).append(" as (").append(writes.get(i).batchSql("moved", "b"))
                    .append(')');
        }
        sql.append(" select cast(b.id as text) as id, m.id is not null as moved,")
                .append(" coalesce(to_jsonb(m), to_jsonb(o))::text as row,")
                .append(" case when m.id is null then ").append(TransitionSql.history("b.id"))
                .append(" end as history from b left join moved m on m.id = b.id")
                .append(" left join orders o on o.id = b.id and m.id is null");
        return new Statement(sql.toString(), event.name(), List.copyOf(columns));
    }
}
