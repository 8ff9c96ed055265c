package io.orderflow.order.api;

import io.orderflow.order.domain.InvalidOrderException;
import io.orderflow.order.domain.LineItem;
import io.orderflow.order.domain.Order;
import java.util.ArrayList;
import java.util.List;

/**
 * Request bodies. Only these fields are read: a body naming {@code status}, {@code version}, {@code amount} or
 * {@code id} is refused (unknown properties fail), so nothing the server owns can be mass-assigned.
 */
public final class OrderRequests {

    private OrderRequests() {
    }

    public record CreateOrder(String customerId, String currency, List<Item> items) {

        public List<LineItem> lineItems() {
            if (items == null || items.isEmpty()) {
                throw new InvalidOrderException("items", "must hold at least one item");
            }
            if (items.size() > Order.MAX_ITEMS) {
                throw new InvalidOrderException("items",
                        "must hold at most " + Order.MAX_ITEMS + " items");
            }
            List<LineItem> lines = new ArrayList<>(items.size());
            for (Item item : items) {
                if (item == null) {
                    throw new InvalidOrderException("items[]", "must not be null");
                }
                lines.add(item.toLineItem());
            }
            return lines;
        }
    }

    public record Item(String sku, Long quantity, Long unitPrice) {

        LineItem toLineItem() {
            if (quantity == null || quantity <= 0 || quantity > Integer.MAX_VALUE) {
                throw new InvalidOrderException("items[].quantity", "must be a whole number from 1 to 2147483647");
            }
            if (unitPrice == null) {
                throw new InvalidOrderException("items[].unitPrice", "is required (minor units)");
            }
            return new LineItem(sku, quantity.intValue(), unitPrice);
        }
    }

    public record Pay(String provider) {
    }

    public record Ship(String carrier, String trackingNumber) {
    }

    public record Cancel(String reason) {
    }

    public record Deliver() {
    }
}
