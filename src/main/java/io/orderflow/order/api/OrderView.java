package io.orderflow.order.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.orderflow.order.domain.LineItem;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderStatus;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** An order as the API shows it. Payment, shipment and cancellation appear once they exist. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OrderView(UUID id, String customerId, OrderStatus status, long version, String currency, long amount,
        List<Item> items, Payment payment, Long refundedAmount, Order.Shipment shipment,
        Order.Cancellation cancellation, Instant createdAt, Instant updatedAt) {

    public record Item(String sku, int quantity, long unitPrice) {
    }

    /** The order's payment; what was refunded of it is the order's {@code refundedAmount}. */
    public record Payment(String provider, String providerTxnId, Instant paidAt, Instant refundedAt, UUID attemptId) {

        static Payment of(Order.Payment p) {
            return p == null ? null
                    : new Payment(p.provider(), p.providerTxnId(), p.paidAt(), p.refundedAt(), p.attemptId());
        }
    }

    public static OrderView of(Order order) {
        List<Item> items = order.items().stream()
                .map((LineItem i) -> new Item(i.sku(), i.quantity(), i.unitPrice())).toList();
        return new OrderView(order.id(), order.customerId(), order.status(), order.version(), order.currency(),
                order.amount(), items, Payment.of(order.payment()),
                order.payment() == null ? null : order.payment().refundedAmount(), order.shipment(),
                order.cancellation(), order.createdAt(), order.updatedAt());
    }
}
