package io.orderflow.order.persistence;

import static io.orderflow.common.Db.instant;

import io.orderflow.order.domain.LineItem;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.order.domain.Transition;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Row;
import java.util.ArrayList;
import java.util.List;

/** Maps rows of {@code orders} and {@code order_transitions} to the domain and back. */
final class OrderRows {

    private OrderRows() {
    }

    static Order order(Row row) {
        Order.Payment payment = row.getString("payment_provider") == null ? null
                : new Order.Payment(row.getString("payment_provider"), row.getString("payment_txn_id"),
                        instant(row, "paid_at"), instant(row, "refunded_at"));
        Order.Shipment shipment = row.getString("carrier") == null ? null
                : new Order.Shipment(row.getString("carrier"), row.getString("tracking_number"),
                        instant(row, "shipped_at"), instant(row, "delivered_at"));
        Order.Cancellation cancellation = row.getOffsetDateTime("cancelled_at") == null ? null
                : new Order.Cancellation(row.getString("cancel_reason"), instant(row, "cancelled_at"));
        return new Order(row.getUUID("id"), row.getString("customer_id"), OrderStatus.valueOf(row.getString("status")),
                row.getLong("version"), row.getString("currency"), row.getLong("amount"),
                items((JsonArray) row.getValue("items")), payment, shipment, cancellation,
                instant(row, "created_at"), instant(row, "updated_at"));
    }

    static Transition transition(Row row) {
        return new Transition(row.getInteger("seq"), OrderEvent.valueOf(row.getString("event")),
                OrderStatus.valueOf(row.getString("from_status")), OrderStatus.valueOf(row.getString("to_status")),
                instant(row, "at"), row.getString("source"), row.getString("request_key"));
    }

    /**
     * History read as {@code "EVENT FROM TO"} triples (see {@link OrderRepository#findForEvent}): what the conflict
     * judge needs; time, source and key are not read. Null stays null (the history was not needed).
     */
    static List<Transition> steps(String[] triples) {
        if (triples == null) {
            return null;
        }
        List<Transition> steps = new ArrayList<>(triples.length);
        for (String triple : triples) {
            String[] part = triple.split(" ", 3);
            steps.add(new Transition(steps.size() + 1, OrderEvent.valueOf(part[0]), OrderStatus.valueOf(part[1]),
                    OrderStatus.valueOf(part[2]), null, null, null));
        }
        return steps;
    }

    static JsonArray itemsJson(List<LineItem> items) {
        JsonArray array = new JsonArray();
        for (LineItem item : items) {
            array.add(new JsonObject().put("sku", item.sku()).put("quantity", item.quantity())
                    .put("unitPrice", item.unitPrice()));
        }
        return array;
    }

    private static List<LineItem> items(JsonArray array) {
        List<LineItem> items = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            JsonObject item = array.getJsonObject(i);
            items.add(new LineItem(item.getString("sku"), item.getInteger("quantity"), item.getLong("unitPrice")));
        }
        return items;
    }
}
