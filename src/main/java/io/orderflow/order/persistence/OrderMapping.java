package io.orderflow.order.persistence;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.orderflow.common.json.PgTimestamps;
import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.LineItem;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.order.domain.Transition;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Rows to the domain and back: entities read by Hibernate, the JSON of rows returned by the write statements
 * ({@code to_jsonb}), and an event's details as stored with its transition.
 */
@ApplicationScoped
public class OrderMapping {

    private static final TypeReference<List<OrderEntity.Item>> ITEMS = new TypeReference<>() {
    };

    private final ObjectMapper json;
    private final ObjectReader rows;
    /** Made once: every event the feed renders reads its order's items (a reader per call looked its type up again). */
    private final ObjectReader items;

    public OrderMapping(ObjectMapper json) {
        this.json = json;
        // the statements return whole rows (and sometimes a column more); only the entity's columns are read
        this.rows = PgTimestamps.rowReader(json, OrderEntity.class);
        this.items = rows.forType(ITEMS);
    }

    /** An order from the JSON of its row, as a write statement returned it or an idempotency record kept it. */
    public Order fromRowJson(String rowJson) {
        try {
            return toOrder(rows.readValue(rowJson));
        } catch (IOException e) {
            throw new UncheckedIOException("an orders row that is not the table's JSON", e);
        }
    }

    /**
     * An order as it stood at a version, from what never changes (its creation's columns, {@code itemsJson} the
     * {@code items} column's text) and what the history kept of that version: the status, version and update time of
     * the move, and its {@code snapshot} of the changing fields (null for the creation, where none is set yet).
     */
    public Order atVersion(UUID id, String customerId, String currency, long amount, String itemsJson,
            Instant createdAt, String status, long version, Instant updatedAt, String snapshotJson) {
        OrderEntity e = new OrderEntity();
        try {
            if (snapshotJson != null) {
                rows.withValueToUpdate(e).readValue(snapshotJson);
            }
            e.items = items.readValue(itemsJson);
        } catch (IOException failure) {
            throw new UncheckedIOException("a history snapshot or items that are not the table's JSON", failure);
        }
        e.id = id;
        e.customerId = customerId;
        e.currency = currency;
        e.amount = amount;
        e.createdAt = createdAt;
        e.status = status;
        e.version = version;
        e.updatedAt = updatedAt;
        return toOrder(e);
    }

    Order toOrder(OrderEntity e) {
        Order.Payment payment = e.paymentProvider == null ? null
                : new Order.Payment(e.paymentProvider, e.paymentTxnId, e.paidAt, e.refundedAt,
                        e.paymentAttemptId, e.refundedAmount);
        Order.Shipment shipment = e.carrier == null ? null
                : new Order.Shipment(e.carrier, e.trackingNumber, e.shippedAt, e.deliveredAt);
        Order.Cancellation cancellation = e.cancelledAt == null ? null
                : new Order.Cancellation(e.cancelReason, e.cancelledAt);
        List<LineItem> items = e.items.stream().map(i -> new LineItem(i.sku(), i.quantity(), i.unitPrice())).toList();
        return new Order(e.id, e.customerId, OrderStatus.valueOf(e.status), e.version, e.currency, e.amount, items,
                payment, shipment, cancellation, e.createdAt, e.updatedAt);
    }

    OrderEntity toEntity(Order order) {
        OrderEntity e = new OrderEntity();
        e.id = order.id();
        e.customerId = order.customerId();
        e.status = order.status().name();
        e.version = order.version();
        e.currency = order.currency();
        e.amount = order.amount();
        e.items = order.items().stream().map(i -> new OrderEntity.Item(i.sku(), i.quantity(), i.unitPrice())).toList();
        e.createdAt = order.createdAt();
        e.updatedAt = order.updatedAt();
        return e;
    }

    Transition toTransition(TransitionEntity t) {
        OrderEvent event = OrderEvent.valueOf(t.event);
        return new Transition(t.seq, event, OrderStatus.valueOf(t.fromStatus), OrderStatus.valueOf(t.toStatus),
                t.at, t.source, t.actor, t.requestKey, details(event, t.details));
    }

    /** The details as the history stores them: the record's fields by name. */
    String detailsJson(EventDetails details) {
        try {
            return json.writeValueAsString(details);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The details an event was applied with, or null when the history does not hold them. */
    EventDetails details(OrderEvent event, Map<String, Object> stored) {
        return stored == null ? null : json.convertValue(stored, detailsType(event));
    }

    private static Class<? extends EventDetails> detailsType(OrderEvent event) {
        return switch (event) {
            case PAY -> EventDetails.Pay.class;
            case SHIP -> EventDetails.Ship.class;
            case CANCEL -> EventDetails.Cancel.class;
            case DELIVER -> EventDetails.None.class;
            case PAYMENT_SUCCEEDED, PAYMENT_FAILED, REFUND_SUCCEEDED, REFUND_COMPLETED ->
                    EventDetails.ProviderReport.class;
        };
    }
}
