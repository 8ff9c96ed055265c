package io.orderflow.order.persistence;

import io.orderflow.common.SameStatementWrite;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderField;
import io.orderflow.order.domain.OrderTransitions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The transition statement: the compare-and-set is the read. One UPDATE joins the order with the transition table
 * (generated here from {@link OrderTransitions}, never written by hand) on the event and the order's current
 * status, so it both checks that the event applies and computes the target status; the old status comes back
 * from the table row it matched. History and any same-statement writes (idempotency record, payment rows) read
 * the moved row in CTEs of the same statement. When nothing moved, the same statement returns the order as it
 * stands and its history, so the zero-row verdict needs no second round trip.
 *
 * <p>One builder for one order and for many at once (group commit): the {@link TransitionSource} says where the
 * values come from, and nothing else differs, guards included.
 */
public final class TransitionSql {

    /**
     * A transition statement, the event it moves orders by ({@code :event}), and, for {@link TransitionSource#ARRAYS},
     * its input columns in the order of {@code unnest}'s arrays ({@code :b_<name>}); one order's statement takes
     * named parameters instead, and has none.
     */
    public record Statement(String sql, String event, List<Column> columns) {
    }

    /** One input column: its name (a parameter's, {@code f_<field>}, or a base one) and its SQL type. */
    public record Column(String name, String type) {
    }

    /** The columns every row of a batch has, before the fields it sets, its guards and the writes' parameters. */
    static final List<Column> BASE = List.of(new Column("id", "uuid"), new Column("now", "timestamptz"),
            new Column("owner", "text"), new Column("version", "bigint"), new Column("source", "text"),
            new Column("actor", "text"), new Column("request_key", "text"), new Column("details", "jsonb"),
            new Column("trace", "text"));

    /** The values a move must agree with besides its status: the amount and currency of the order. */
    static final List<Column> AMOUNT = List.of(new Column("amount", "bigint"), new Column("currency", "text"));

    /**
     * Statements already built, by shape: a request's statement is looked up, not rebuilt. There are few shapes (a
     * source, an event, its fields and guards, what rides along); the bound is a guard against a write whose SQL
     * would vary.
     */
    static final int MAX_SHAPES = 512;
    private static final BoundedCache<Shape, Statement> BUILT = new BoundedCache<>(MAX_SHAPES);

    private record Shape(TransitionSource source, OrderEvent event, Set<OrderField> changed, Set<OrderField> required,
            boolean amountGuard, List<String> writes) {
    }

    private TransitionSql() {
    }

    /** True when every write has a batch form, so a batch ({@link TransitionSource#ARRAYS}) can carry it. */
    static boolean batchable(List<SameStatementWrite> writes) {
        return writes.stream().allMatch(write -> TransitionSource.ARRAYS.write(write) != null);
    }

    /**
     * @param event the event, whose rules' conditions the statement checks
     * @param changed the fields the event sets, in a stable order (an EnumMap's); each becomes
     *        {@code column = :f_<field>}
     * @param required the fields the order must hold for the event to concern it; each {@code :q_<field>}
     * @param amountGuard whether the move requires the order's amount and currency ({@code :amount, :currency})
     */
    public static Statement statement(TransitionSource source, OrderEvent event, Set<OrderField> changed,
            Set<OrderField> required, boolean amountGuard, List<SameStatementWrite> writes) {
        Shape shape = new Shape(source, event, Set.copyOf(changed), Set.copyOf(required), amountGuard,
                IntStream.range(0, writes.size()).mapToObj(i -> "%s as (%s)".formatted(writes.get(i).name() != null
                        ? writes.get(i).name() : "write" + i, source.write(writes.get(i)))).toList());
        return BUILT.get(shape, s -> build(s, changed, required, writes));
    }

    private static Statement build(Shape shape, Set<OrderField> changed, Set<OrderField> required,
            List<SameStatementWrite> writes) {
        TransitionSource source = shape.source();
        List<Column> columns = source == TransitionSource.ARRAYS
                ? arrayColumns(changed, required, shape.amountGuard(), writes) : List.of();
        String owner = source.value("owner", "text");
        String version = source.value("version", "bigint");
        String sql = """
                with rule (event, from_status, to_status, condition) as (%s)%s, \
                moved as (update orders o set status = r.to_status, version = o.version + 1, updated_at = %s%s \
                %s and (%s is null or o.customer_id = %s) and (%s is null or o.version = %s)%s%s \
                returning o.*, r.from_status), \
                history as (insert into order_transitions (order_id, seq, event, from_status, to_status, at, source, \
                actor, request_key, details, trace, snapshot) %s)%s \
                %s""".formatted(rules(shape.event()), source.input(columns), source.value("now", "timestamptz"),
                sets(source, changed), source.match(), owner, owner, version, version, conditions(shape.event(),
                value(source, OrderField.PAYMENT_PROVIDER, paramName(OrderField.PAYMENT_PROVIDER))),
                guards(source, required, shape.amountGuard()), source.historyRows(), writes(shape.writes()),
                source.outcome());
        return new Statement(sql, shape.event().name(), List.copyOf(columns));
    }

    /** A batch row's input: the base columns, the fields it sets, the values it requires, the writes' parameters. */
    private static List<Column> arrayColumns(Set<OrderField> changed, Set<OrderField> required, boolean amountGuard,
            List<SameStatementWrite> writes) {
        List<Column> columns = new ArrayList<>(BASE);
        changed.forEach(field -> columns.add(new Column(paramName(field), type(field))));
        required.forEach(field -> columns.add(new Column(requiredName(field), type(field))));
        if (amountGuard) {
            columns.addAll(AMOUNT);
        }
        Map<String, String> writeColumns = new TreeMap<>();
        writes.forEach(write -> writeColumns.putAll(write.parameterTypes()));
        writeColumns.forEach((name, type) -> columns.add(new Column(name, type)));
        return columns;
    }

    /**
     * The table's rules for {@code event} as a relation: (event, from_status, to_status, condition). Only the event's
     * own rows: the statement joins on the event anyway, and a shorter statement is parsed faster.
     */
    static String rules(OrderEvent event) {
        return OrderTransitions.rules().stream().filter(rule -> rule.event() == event)
                .flatMap(rule -> rule.from().stream().map(from -> "('%s', '%s', '%s', '%s')"
                        .formatted(rule.event(), from, rule.to(), rule.when())))
                .collect(Collectors.joining(", ", "values ", ""));
    }

    /** The fields the event sets, each to its input value. */
    private static String sets(TransitionSource source, Set<OrderField> changed) {
        return changed.stream().map(field -> ", %s = %s".formatted(column(field),
                value(source, field, paramName(field)))).collect(Collectors.joining());
    }

    /** What the order must hold besides its status for the move to concern it: required fields, the amount. */
    private static String guards(TransitionSource source, Set<OrderField> required, boolean amountGuard) {
        String guards = required.stream().map(field -> " and o.%s is not distinct from %s".formatted(column(field),
                value(source, field, requiredName(field)))).collect(Collectors.joining());
        return amountGuard ? guards + AMOUNT.stream().map(column -> " and o.%s = %s".formatted(column.name(),
                source.value(column.name(), column.type()))).collect(Collectors.joining()) : guards;
    }

    /** The writes as CTEs, each {@code <name> as (<sql>)}: its own name, or {@code write<i>}. */
    private static String writes(List<String> writes) {
        return writes.stream().map(write -> ", " + write).collect(Collectors.joining());
    }

    /** The order's history (oldest first) as JSON text, for the zero-row verdict. */
    static String history(String orderId) {
        return """
                (select coalesce(json_agg(json_build_object('seq', t.seq, 'event', t.event, 'from', t.from_status, \
                'to', t.to_status, 'details', t.details) order by t.seq), '[]')::text from order_transitions t \
                where t.order_id = %s)""".formatted(orderId);
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

    /** The input that carries {@code field}'s new value. */
    public static String paramName(OrderField field) {
        return "f_" + column(field);
    }

    /** The input that carries the value {@code field} must hold. */
    static String requiredName(OrderField field) {
        return "q_" + column(field);
    }

    private static String value(TransitionSource source, OrderField field, String name) {
        return source.value(name, type(field));
    }

    static String type(OrderField field) {
        return field == OrderField.PAYMENT_ATTEMPT_ID ? "uuid" : field == OrderField.REFUNDED_AMOUNT ? "bigint" : field.name().endsWith("_AT") ? "timestamptz" : "text";
    }
}
