package io.orderflow.order.persistence;

import io.orderflow.common.SameStatementWrite;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderField;
import io.orderflow.order.domain.OrderTransitions;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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

    /**
     * The table's rules for {@code event} as a relation: (event, from_status, to_status, condition). Only the event's
     * own rows: the statement joins on the event anyway, and a shorter statement is parsed faster.
     */
    static String rules(OrderEvent event) {
        return OrderTransitions.rules().stream().filter(rule -> rule.event() == event)
                .flatMap(rule -> rule.from().stream()
                        .map(from -> "('" + rule.event() + "', '" + from + "', '" + rule.to() + "', '" + rule.when()
                                + "')"))
                .collect(Collectors.joining(", ", "values ", ""));
    }

    /**
     * Statements already built, by shape: a request's statement is looked up, not rebuilt. There are few shapes (an
     * event, its fields, what rides along); the bound is a guard against a write whose SQL would vary.
     */
    private static final Map<Shape, String> BUILT = new ConcurrentHashMap<>();
    private static final int MAX_SHAPES = 512;

    private record Shape(OrderEvent event, Set<OrderField> changed, Set<OrderField> required, boolean amountGuard,
            List<String> writes) {
    }

    private TransitionSql() {
    }

    /**
     * @param event the event, whose rules' conditions the statement checks
     * @param changed the fields the event sets; each becomes {@code column = :f_<field>}
     * @param required the fields the order must hold for the event to concern it; each {@code :q_<field>}
     * @param amountGuard whether the move requires the order's amount and currency ({@code :amount, :currency})
     */
    public static String statement(OrderEvent event, Set<OrderField> changed, Set<OrderField> required,
            boolean amountGuard, List<SameStatementWrite> writes) {
        Shape shape = new Shape(event, Set.copyOf(changed), Set.copyOf(required), amountGuard,
                writes.stream().map(write -> write.sql("moved")).toList());
        String sql = BUILT.get(shape);
        if (sql == null) {
            sql = build(event, changed, required, amountGuard, shape.writes());
            if (BUILT.size() < MAX_SHAPES) {
                BUILT.put(shape, sql);
            }
        }
        return sql;
    }

    private static String build(OrderEvent event, Set<OrderField> changed, Set<OrderField> required,
            boolean amountGuard, List<String> writes) {
        StringBuilder sql = new StringBuilder("with rule (event, from_status, to_status, condition) as (")
                .append(rules(event))
                .append("), moved as (update orders o set status = r.to_status, version = o.version + 1,")
                .append(" updated_at = cast(:now as timestamptz)");
        for (OrderField field : changed) {
            sql.append(", ").append(column(field)).append(" = ").append(param(field));
        }
        sql.append(" from rule r where o.id = :id and r.event = :event and r.from_status = o.status")
                .append(" and (cast(:owner as text) is null or o.customer_id = cast(:owner as text))")
                .append(" and (cast(:version as bigint) is null or o.version = cast(:version as bigint))");
        sql.append(conditions(event, param(OrderField.PAYMENT_PROVIDER)));
        for (OrderField field : required) {
            sql.append(" and o.").append(column(field)).append(" is not distinct from cast(:")
                    .append(requiredName(field)).append(" as ").append(type(field)).append(')');
        }
        if (amountGuard) {
            sql.append(" and o.amount = cast(:amount as bigint) and o.currency = cast(:currency as text)");
        }
        sql.append(" returning o.*, r.from_status),")
                .append(" history as (insert into order_transitions (order_id, seq, event, from_status, to_status,")
                .append(" at, source, actor, request_key, details) select id, version, :event, from_status,")
                .append(" status, cast(:now as timestamptz), :source, cast(:actor as text), :requestKey, cast(cast(:details as text) as jsonb) from moved)");
        for (int i = 0; i < writes.size(); i++) {
            sql.append(", write").append(i).append(" as (").append(writes.get(i)).append(')');
        }
        return sql.append(" select true as moved, to_jsonb(m)::text as row, null as history from moved m")
                .append(" union all select false, to_jsonb(o)::text, ").append(history("o.id"))
                .append(" from orders o where o.id = :id and not exists (select 1 from moved)").toString();
    }

    /** The order's history (oldest first) as JSON text, for the zero-row verdict. */
    static String history(String orderId) {
        return "(select coalesce(json_agg(json_build_object('seq', t.seq, 'event', t.event, 'from', t.from_status,"
                + " 'to', t.to_status, 'details', t.details) order by t.seq), '[]')::text from order_transitions t"
                + " where t.order_id = " + orderId + ")";
    }

    /** The rule conditions an event's move must meet; {@code providerChangesTo} is the new provider's value. */
    static String conditions(OrderEvent event, String providerChangesTo) {
        StringBuilder sql = new StringBuilder(" and (r.condition = 'ALWAYS'");
        if (OrderTransitions.rules().stream().anyMatch(rule -> rule.event() == event
                && rule.when() == OrderTransitions.Condition.PROVIDER_CHANGES)) {
            sql.append(" or r.condition = 'PROVIDER_CHANGES' and o.payment_provider is distinct from ")
                    .append(providerChangesTo);
        }
        return sql.append(')').toString();
    }

    /** The column a recordable field lives in: its name in lower case (PAID_AT: paid_at). */
    static String column(OrderField field) {
        return field.name().toLowerCase(Locale.ROOT);
    }

    /** The named parameter that carries {@code field}'s new value. */
    public static String paramName(OrderField field) {
        return "f_" + column(field);
    }

    /** The named parameter that carries the value {@code field} must hold. */
    static String requiredName(OrderField field) {
        return "q_" + column(field);
    }

    private static String param(OrderField field) {
        return "cast(:" + paramName(field) + " as " + type(field) + ")";
    }

    static String type(OrderField field) {
        return field == OrderField.PAYMENT_ATTEMPT_ID ? "uuid" : field == OrderField.REFUNDED_AMOUNT ? "bigint" : field.name().endsWith("_AT") ? "timestamptz" : "text";
    }
}
