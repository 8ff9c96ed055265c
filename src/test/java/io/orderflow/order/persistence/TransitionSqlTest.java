package io.orderflow.order.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.common.SameStatementWrite;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderField;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The one transition statement builder, without a database: its shapes and its two sources. */
class TransitionSqlTest {

    private static final Set<OrderField> SHIP_CHANGES = EnumSet.of(OrderField.CARRIER, OrderField.TRACKING_NUMBER,
            OrderField.SHIPPED_AT, OrderField.DELIVERED_AT);
    private static final Set<OrderField> REPORT_CHANGES = EnumSet.of(OrderField.PAYMENT_PROVIDER,
            OrderField.PAYMENT_TXN_ID, OrderField.PAID_AT, OrderField.REFUNDED_AT);

    @Test
    void shouldKeepOneStatementPerShapeWithItsSourcePartOfTheShape() {
        TransitionSql.Statement one = statement(TransitionSource.ONE_ORDER, OrderEvent.SHIP, SHIP_CHANGES, Set.of(),
                false);
        TransitionSql.Statement batch = statement(TransitionSource.ARRAYS, OrderEvent.SHIP, SHIP_CHANGES, Set.of(),
                false);
        assertTrue(one.sql().contains("where o.id = :id"), one.sql());
        assertTrue(batch.sql().contains(" from unnest("), batch.sql());
        assertEquals(List.of(), one.columns(), "one order's values are named parameters");
        assertSame(one, statement(TransitionSource.ONE_ORDER, OrderEvent.SHIP, SHIP_CHANGES, Set.of(), false));
        assertSame(batch, statement(TransitionSource.ARRAYS, OrderEvent.SHIP, SHIP_CHANGES, Set.of(), false));
    }

    @Test
    void shouldMakeTheGuardsPartOfABatchsShapeAndColumns() {
        TransitionSql.Statement unguarded = statement(TransitionSource.ARRAYS, OrderEvent.PAYMENT_FAILED,
                REPORT_CHANGES, Set.of(), false);
        TransitionSql.Statement guarded = statement(TransitionSource.ARRAYS, OrderEvent.PAYMENT_FAILED,
                REPORT_CHANGES, Set.of(OrderField.PAYMENT_ATTEMPT_ID), true);
        assertNotEquals(unguarded.sql(), guarded.sql());
        assertTrue(guarded.sql().contains(" and o.payment_attempt_id is not distinct from b.q_payment_attempt_id and"
                + " o.amount = b.amount and o.currency = b.currency returning "), guarded.sql());
        List<TransitionSql.Column> columns = guarded.columns();
        assertEquals(List.of(new TransitionSql.Column("q_payment_attempt_id", "uuid"),
                new TransitionSql.Column("amount", "bigint"), new TransitionSql.Column("currency", "text")),
                columns.subList(columns.size() - 3, columns.size()), "after the base columns and the fields set");
    }

    /**
     * What a batch row must meet to move is what one order must: the update's conditions after its match, with
     * each named parameter read from the row's column instead ({@code cast(:x as type)} is {@code b.x}).
     */
    @ParameterizedTest
    @EnumSource(OrderEvent.class)
    void shouldHoldABatchRowToEveryConditionOneOrderIsHeldTo(OrderEvent event) {
        Set<OrderField> required = EnumSet.of(OrderField.PAYMENT_ATTEMPT_ID, OrderField.PAYMENT_TXN_ID);
        String one = conditions(statement(TransitionSource.ONE_ORDER, event, REPORT_CHANGES, required, true).sql());
        String batch = conditions(statement(TransitionSource.ARRAYS, event, REPORT_CHANGES, required, true).sql());
        assertEquals(one.replaceAll("cast\\(:(\\w+) as \\w+\\)", "b.$1"), batch);
    }

    /** The update's conditions, from after the order and rule are matched up to its {@code returning}. */
    private static String conditions(String sql) {
        int from = sql.indexOf("r.from_status = o.status") + "r.from_status = o.status".length();
        return sql.substring(from, sql.indexOf(" returning o.*"));
    }

    private static TransitionSql.Statement statement(TransitionSource source, OrderEvent event,
            Set<OrderField> changed, Set<OrderField> required, boolean amountGuard) {
        return TransitionSql.statement(source, event, changed, required, amountGuard, List.<SameStatementWrite>of());
    }
}
