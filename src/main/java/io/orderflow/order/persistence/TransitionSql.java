package io.orderflow.order.persistence;

import io.orderflow.common.SameStatementWrite;
import io.orderflow.order.domain.OrderField;
import io.orderflow.order.domain.OrderTransitions;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The transition statement: the compare-and-set is the read. One UPDATE joins the order with the transition table
 * (generated here from {@link OrderTransitions}, never written by hand) on the event and the order's current
 * status, so it both checks that the event applies and computes the target status; the old status comes back
 * from the table row it matched. History and any same-statement writes (idempotency record, payment rows) read
 * the moved row in CTEs of the same statement. When nothing moved, the same statement returns the order as it
 * stands and its history, so the zero-row verdict needs no second round trip.
 */
public final class TransitionSql {

    /** The table as a relation: (event, from_status, to_status). */
    static final String RULES = OrderTransitions.rules().stream()
            .flatMap(rule -> rule.from().stream()
                    .map(from -> "('" + rule.event() + "', '" + from + "', '" + rule.to() + "')"))
            .collect(Collectors.joining(", ", "values ", ""));

    private TransitionSql() {
    }

    /**
     * @param changed the fields the event sets; each becomes {@code column = :f_<field>}
     * @param amountGuard whether the move requires the order's amount and currency ({@code :amount, :currency})
     */
    public static String statement(Set<OrderField> changed, boolean amountGuard, List<SameStatementWrite> writes) {
        StringBuilder sql = new StringBuilder("with rule (event, from_status, to_status) as (").append(RULES)
                .append("), moved as (update orders o set status = r.to_status, version = o.version + 1,")
                .append(" updated_at = cast(:now as timestamptz)");
        for (OrderField field : changed) {
            sql.append(", ").append(column(field)).append(" = ").append(param(field));
        }
        sql.append(" from rule r where o.id = :id and r.event = :event and r.from_status = o.status")
                .append(" and (cast(:owner as text) is null or o.customer_id = cast(:owner as text))")
                .append(" and (cast(:version as bigint) is null or o.version = cast(:version as bigint))");
        if (amountGuard) {
            sql.append(" and o.amount = cast(:amount as bigint) and o.currency = cast(:currency as text)");
        }
        sql.append(" returning o.*, r.from_status),")
                .append(" history as (insert into order_transitions (order_id, seq, event, from_status, to_status,")
                .append(" at, source, request_key, details) select id, version, :event, from_status, status,")
                .append(" cast(:now as timestamptz), :source, :requestKey, cast(cast(:details as text) as jsonb) from moved)");
        for (int i = 0; i < writes.size(); i++) {
            sql.append(", write").append(i).append(" as (").append(writes.get(i).sql("moved")).append(')');
        }
        return sql.append(" select true as moved, to_jsonb(m)::text as row, null as history from moved m")
                .append(" union all select false, to_jsonb(o)::text, (select coalesce(json_agg(json_build_object(")
                .append("'seq', t.seq, 'event', t.event, 'from', t.from_status, 'to', t.to_status,")
                .append(" 'details', t.details) order by t.seq), '[]')::text from order_transitions t")
                .append(" where t.order_id = o.id) from orders o where o.id = :id")
                .append(" and not exists (select 1 from moved)").toString();
    }

    /** The column a recordable field lives in: its name in lower case (PAID_AT: paid_at). */
    static String column(OrderField field) {
        return field.name().toLowerCase(Locale.ROOT);
    }

    /** The named parameter that carries {@code field}'s new value. */
    public static String paramName(OrderField field) {
        return "f_" + column(field);
    }

    private static String param(OrderField field) {
        return "cast(:" + paramName(field) + " as " + (field.name().endsWith("_AT") ? "timestamptz" : "text") + ")";
    }
}
