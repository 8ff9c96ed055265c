package io.orderflow.events;

/**
 * The SQL that writes an order's event into the outbox from the row its statement just wrote: the CloudEvent is
 * built by PostgreSQL from that row, so it rides in the statement (no second round trip) and its {@code data.order}
 * is the order exactly as {@code GET /orders/{id}} renders it right after the change ({@code OrderView}: the global
 * non-null inclusion is {@code jsonb_strip_nulls}, an instant is {@code outbox_instant}; {@code OrderEventsTest}
 * compares the two in every state).
 */
final class OrderEventSql {

    /** The outbox's aggregate type for order events; refund events carry {@link RefundEvents#AGGREGATE}. */
    static final String AGGREGATE = "order";

    /** Every order event's type starts so; a transition's ends with its event, the creation's with created. */
    private static final String TYPE_PREFIX = "'io.orderflow.order.'";

    private OrderEventSql() {
    }

    /**
     * An insert of one event per row of {@code rows} (the orders table's columns, under alias {@code m}).
     *
     * @param from the SQL of the status before the change (null for the creation)
     * @param event the SQL of the event's name ({@code CREATE} or the table's event)
     * @param changeSource the SQL of who made the change (api, a provider, the reconciler), as the history says
     * @param ceSource the SQL of the CloudEvent's {@code source}
     * @param join what follows {@code from <rows> m} (a join with the batch's values), or empty
     */
    static String insert(String rows, String join, String from, String event, String changeSource, String ceSource) {
        // the id is drawn per row in a subquery of its own, so that the column and the payload carry the same one
        return "insert into outbox (id, aggregatetype, aggregateid, type, payload, created_at) select e.event_id, '"
                + AGGREGATE + "', e.id::text, e.ev_type,"
                + " jsonb_build_object('specversion', '1.0', 'id', e.event_id, 'source', e.ev_ce_source,"
                + " 'type', e.ev_type, 'subject', e.id,"
                + " 'time', outbox_instant(e.updated_at), 'datacontenttype', 'application/json',"
                + " 'data', jsonb_build_object('orderId', e.id, 'event', e.ev_event, 'from', e.ev_from, 'to', e.status,"
                + " 'version', e.version, 'source', e.ev_change_source, 'order', " + orderView("e") + ")),"
                + " e.updated_at from (select gen_random_uuid() as event_id, " + from + " as ev_from, " + event
                + " as ev_event, " + TYPE_PREFIX + " || case " + event + " when 'CREATE' then 'created' else lower("
                + event + ") end as ev_type, " + changeSource + " as ev_change_source, " + ceSource + " as ev_ce_source, m.*"
                + " from " + rows + " m" + join + ") e";
    }

    /** The order in {@code row} (the orders table's columns) as the API's JSON. */
    static String orderView(String row) {
        String r = row + ".";
        return "jsonb_strip_nulls(jsonb_build_object('id', " + r + "id, 'customerId', " + r + "customer_id,"
                + " 'status', " + r + "status, 'version', " + r + "version, 'currency', " + r + "currency,"
                + " 'amount', " + r + "amount, 'items', " + r + "items,"
                + " 'payment', case when " + r + "payment_provider is not null then jsonb_build_object('provider', "
                + r + "payment_provider, 'providerTxnId', " + r + "payment_txn_id, 'paidAt', outbox_instant(" + r
                + "paid_at), 'refundedAt', outbox_instant(" + r + "refunded_at), 'attemptId', " + r
                + "payment_attempt_id) end,"
                + " 'refundedAmount', case when " + r + "payment_provider is not null then " + r + "refunded_amount end,"
                + " 'shipment', case when " + r + "carrier is not null then jsonb_build_object('carrier', " + r
                + "carrier, 'trackingNumber', " + r + "tracking_number, 'shippedAt', outbox_instant(" + r
                + "shipped_at), 'deliveredAt', outbox_instant(" + r + "delivered_at)) end,"
                + " 'cancellation', case when " + r + "cancelled_at is not null then jsonb_build_object('reason', "
                + r + "cancel_reason, 'cancelledAt', outbox_instant(" + r + "cancelled_at)) end,"
                + " 'createdAt', outbox_instant(" + r + "created_at), 'updatedAt', outbox_instant(" + r
                + "updated_at)))";
    }
}
