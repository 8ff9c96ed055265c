package io.orderflow.order.persistence;

import io.orderflow.order.domain.OrderField;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * What a history row keeps so that an order can be read as it stood at that version ({@link OrderMapping#atVersion}):
 * a transition changes the order's status, version and update time (the history row's own columns) and its
 * {@link OrderField}s, which the row keeps as {@code snapshot}; everything else (customer, amount, items, creation
 * time) never changes. So the event feed renders {@code data.order} at the time of each event without the transition
 * writing a copy of the order: the snapshot is a few fields without their nulls.
 */
final class OrderVersions {

    private OrderVersions() {
    }

    /** The snapshot of the moved row {@code row} a history row keeps: its fields after the move, nulls left out. */
    static String snapshot(String row) {
        return Arrays.stream(OrderField.values())
                .map(field -> "'%s', %s.%s".formatted(TransitionSql.column(field), row, TransitionSql.column(field)))
                .collect(Collectors.joining(", ", "jsonb_strip_nulls(jsonb_build_object(", "))"));
    }
}
