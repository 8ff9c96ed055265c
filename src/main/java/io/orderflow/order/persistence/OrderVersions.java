package io.orderflow.order.persistence;

import io.orderflow.order.domain.OrderField;
import io.orderflow.order.domain.OrderStatus;
import java.util.Arrays;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * An order as it stood at an earlier version, rebuilt from its row and its history: what a transition changes is
 * its status, version and update time (the history row's own columns) and its {@link OrderField}s, which the history
 * row keeps as {@code snapshot}; everything else (customer, amount, items, creation time) never changes. So the
 * event feed renders {@code data.order} at the time of each event without the transition writing a copy of the
 * order: the snapshot is a few fields without their nulls.
 */
public final class OrderVersions {

    /** The columns an order's row changes after its creation: the fields, and the three every move sets. */
    private static final String CHANGING = Stream.concat(Arrays.stream(OrderField.values())
            .map(TransitionSql::column), Stream.of("status", "version", "updated_at"))
            .map(column -> "'" + column + "'").collect(Collectors.joining(", ", "array[", "]"));

    private OrderVersions() {
    }

    /** The snapshot of the moved row {@code row} a history row keeps: its fields after the move, nulls left out. */
    static String snapshot(String row) {
        return Arrays.stream(OrderField.values())
                .map(field -> "'%s', %s.%s".formatted(TransitionSql.column(field), row, TransitionSql.column(field)))
                .collect(Collectors.joining(", ", "jsonb_strip_nulls(jsonb_build_object(", "))"));
    }

    /**
     * The JSON of the orders row {@code order} as it stood right after the transition {@code transition} (a row of
     * {@code order_transitions} written with its snapshot), in the form the write statements return a row
     * ({@code to_jsonb}): {@link OrderMapping#fromRowJson} reads it.
     */
    public static String rowAfter(String order, String transition) {
        String t = transition + ".";
        return "(to_jsonb(" + order + ") - " + CHANGING + ") || coalesce(" + t + "snapshot, '{}') ||"
                + " jsonb_build_object('status', " + t + "to_status, 'version', " + t + "seq, 'updated_at', " + t
                + "at)";
    }

    /** The JSON of the orders row {@code order} as its creation wrote it (version 0, nothing changed yet). */
    public static String rowAtCreation(String order) {
        return "(to_jsonb(" + order + ") - " + CHANGING + ") || jsonb_build_object('status', '"
                + OrderStatus.CREATED + "', 'version', 0, 'updated_at', " + order + ".created_at, 'refunded_amount',"
                + " 0)";
    }
}
