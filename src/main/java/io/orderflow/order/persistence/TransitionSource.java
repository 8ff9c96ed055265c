package io.orderflow.order.persistence;

import io.orderflow.common.SameStatementWrite;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Where the transition statement ({@link TransitionSql}) reads its input from. The compare-and-set, its guards and
 * its writes are the same for both; what differs is how a value is named, how the moved rows meet their input, and
 * what the statement returns for the zero-row verdict.
 */
public enum TransitionSource {

    /** One order, its values as named parameters ({@code :f_carrier}); one round trip. */
    ONE_ORDER("""
            from rule r where o.id = :id and r.event = :event and r.from_status = o.status""", """
            select id, version, :event, from_status, status, cast(:now as timestamptz), :source, \
            cast(:actor as text), :requestKey, cast(cast(:details as text) as jsonb), cast(:trace as text), %s \
            from moved""", """
            select true as moved, to_jsonb(m)::text as row, null as history from moved m \
            union all select false, to_jsonb(o)::text, %s \
            from orders o where o.id = :id and not exists (select 1 from moved)""", "o.id") {

        @Override
        String value(String name, String type) {
            return "cast(:" + name + " as " + type + ")";
        }

        @Override
        String input(List<TransitionSql.Column> columns) {
            return "";
        }

        @Override
        String write(SameStatementWrite write) {
            return write.sql("moved");
        }
    },

    /**
     * Many orders (group commit), each row's values read from arrays ({@code unnest} of {@code :b_<column>}) into
     * the relation {@code b}. Each row's compare-and-set is its own: a row that does not move comes back as its
     * order stands, with its history. The rows name distinct orders; the caller guarantees it.
     */
    ARRAYS("""
            from b join rule r on r.event = :event where o.id = b.id and r.from_status = o.status""", """
            select m.id, m.version, :event, m.from_status, m.status, b.now, b.source, b.actor, b.request_key, \
            b.details, b.trace, %s from moved m join b on b.id = m.id""", """
            select cast(b.id as text) as id, m.id is not null as moved, coalesce(to_jsonb(m), to_jsonb(o))::text \
            as row, case when m.id is null then %s end as history from b left join moved m on m.id = b.id \
            left join orders o on o.id = b.id and m.id is null""", "b.id") {

        @Override
        String value(String name, String type) {
            return "b." + name;
        }

        @Override
        String input(List<TransitionSql.Column> columns) {
            return """
                    , b as (select %s from unnest(%s) as u(%s))""".formatted(
                    each(columns, i -> "cast(u.c" + i + " as " + columns.get(i).type() + ") as "
                            + columns.get(i).name()),
                    each(columns, i -> "cast(cast(:b_" + columns.get(i).name() + " as text) as text[])"),
                    each(columns, i -> "c" + i));
        }

        @Override
        String write(SameStatementWrite write) {
            return write.batchSql("moved", "b");
        }
    };

    private final String match;
    private final String historyRows;
    private final String outcome;
    private final String orderId;

    TransitionSource(String match, String historyRows, String outcome, String orderId) {
        this.match = match;
        this.historyRows = historyRows;
        this.outcome = outcome;
        this.orderId = orderId;
    }

    /** How the statement names an input value of {@code type}. */
    abstract String value(String name, String type);

    /** The CTE that holds the rows' input, after the rule table's ({@code ", b as (...)"}), or nothing. */
    abstract String input(List<TransitionSql.Column> columns);

    /** {@code write} reading the moved rows ({@code moved}), or null when it has no form for this source. */
    abstract String write(SameStatementWrite write);

    /** Each column's SQL, by its position, in a list. */
    private static String each(List<TransitionSql.Column> columns, IntFunction<String> column) {
        return IntStream.range(0, columns.size()).mapToObj(column).collect(Collectors.joining(", "));
    }

    /** The update's {@code from ... where}: which order (and which rule) each input row moves. */
    String match() {
        return match;
    }

    /**
     * The history rows' {@code select}, from the moved rows: the move, and the order's changing fields after it
     * ({@link OrderVersions#snapshot}), from which the event feed renders the order at this version.
     */
    String historyRows() {
        return historyRows.formatted(OrderVersions.snapshot(this == ONE_ORDER ? "moved" : "m"));
    }

    /** What the statement returns: each order moved, or as it stands with its history. */
    String outcome() {
        return outcome.formatted(TransitionSql.history(orderId));
    }
}
