package io.orderflow.events;

import io.orderflow.common.SameStatementWrite;
import io.orderflow.common.TraceContext;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.HashMap;
import java.util.Map;

/**
 * A refund's status change as an event of its order, written by the statement that changes the refund (the payment
 * module's: issue, settle, the refund a cancel owes) from the refund rows it wrote, as a side event: refunds change
 * rarely, so the event's {@code data} is built here, by PostgreSQL, and {@code data.refund} is the refund exactly as
 * {@code GET /orders/{id}/refunds/{refundId}} renders it ({@code RefundView}: non-null members only, instants as
 * the API writes them). A statement that changes no refund inserts nothing.
 */
@ApplicationScoped
public class RefundEvents {

    private static final String TYPE_PREFIX = "'" + EventTypes.REFUND_PREFIX + "'";

    /**
     * The insert of one event per refund row of the relation its {@link SameStatementWrite#sql} is given (the
     * {@code refunds} table's columns, as written).
     */
    public SameStatementWrite written() {
        return new SameStatementWrite() {
            @Override
            public String sql(String rows) {
                return insert(rows);
            }

            @Override
            public Map<String, Object> parameters() {
                Map<String, Object> values = new HashMap<>();
                values.put("rev_trace", TraceContext.current());
                return values;
            }
        };
    }

    // order_version is the order's version as the statement found it (a CTE reads the statement's snapshot, before
    // a settle's count raised it): the event follows that version's transition and precedes the next one's.
    private static String insert(String rows) {
        return "insert into order_side_events (order_id, type, order_version, at, data, trace) select e.order_id,"
                + TYPE_PREFIX + " || lower(e.status), (select o.version from orders o where o.id = e.order_id),"
                + " e.updated_at, jsonb_build_object('orderId', e.order_id, 'refundId', e.id, 'amount', e.amount,"
                + " 'currency', rtrim(e.currency), 'status', e.status, 'refund', " + refundView("e") + "),"
                + " cast(:rev_trace as text) from " + rows + " e";
    }

    /** The refund in {@code row} (the refunds table's columns) as the API's JSON. */
    private static String refundView(String row) {
        String r = row + ".";
        return "jsonb_strip_nulls(jsonb_build_object('id', " + r + "id, 'orderId', " + r + "order_id, 'amount', "
                + r + "amount, 'currency', rtrim(" + r + "currency), 'reason', " + r + "reason, 'status', " + r
                + "status, 'issuedBy', " + r + "issued_by, 'provider', " + r + "provider, 'captureTxnId', " + r
                + "capture_txn_id, 'providerRefundId', " + r + "provider_refund_id, 'failureReason', " + r
                + "failure_reason, 'createdAt', outbox_instant(" + r + "created_at), 'updatedAt', outbox_instant("
                + r + "updated_at)))";
    }
}
