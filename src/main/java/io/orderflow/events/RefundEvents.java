package io.orderflow.events;

import io.orderflow.common.SameStatementWrite;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/**
 * A refund's status change as a CloudEvent in the outbox, written by the statement that changes the refund (the
 * payment module's: issue, settle, the refund a cancel owes) from the refund rows it wrote. Like
 * {@link OrderEventSql}, PostgreSQL builds the event, so {@code data.refund} is the refund exactly as
 * {@code GET /orders/{id}/refunds/{refundId}} renders it ({@code RefundView}: non-null members only, instants as
 * {@code outbox_instant}); a statement that changes no refund inserts nothing.
 */
@ApplicationScoped
public class RefundEvents {

    /** The outbox's aggregate type for refund events (the Debezium router's topic suffix). */
    static final String AGGREGATE = "refund";

    private static final String TYPE_PREFIX = "'io.orderflow.refund.'";

    private final EventsConfig config;

    public RefundEvents(EventsConfig config) {
        this.config = config;
    }

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
                return Map.of("rev_ce_source", config.source());
            }
        };
    }

    // The aggregate id is the ORDER's id, not the refund's: the relay keeps order per aggregateid (Outbox.claim), so
    // a refund's events and its order's events form one sequence, and a refund's succeeded event, written by the
    // statement before the order's REFUND_COMPLETED, is published before it. The subject is the order id as well.
    private static String insert(String rows) {
        return "insert into outbox (id, aggregatetype, aggregateid, type, payload, created_at) select e.event_id, '"
                + AGGREGATE + "', e.order_id::text, e.ev_type, jsonb_build_object('specversion', '1.0', 'id',"
                + " e.event_id, 'source', cast(:rev_ce_source as text), 'type', e.ev_type, 'subject', e.order_id,"
                + " 'time', outbox_instant(e.updated_at), 'datacontenttype', 'application/json',"
                + " 'data', jsonb_build_object('orderId', e.order_id, 'refundId', e.id, 'amount', e.amount,"
                + " 'currency', rtrim(e.currency), 'status', e.status, 'refund', " + refundView("e") + ")),"
                + " e.updated_at from (select gen_random_uuid() as event_id, " + TYPE_PREFIX
                + " || lower(f.status) as ev_type, f.* from " + rows + " f) e";
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
