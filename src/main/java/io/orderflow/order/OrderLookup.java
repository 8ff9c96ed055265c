package io.orderflow.order;

import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderNotFoundException;
import io.orderflow.order.persistence.OrderRepository;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;

/**
 * Reads an order as its caller may see it. A class of its own so that a transition's participants (which
 * {@link OrderService} calls) can read orders without depending on the service that calls them.
 */
@ApplicationScoped
public class OrderLookup {

    private final OrderRepository orders;

    public OrderLookup(OrderRepository orders) {
        this.orders = orders;
    }

    /**
     * The order, when it exists and {@code owner} (if given) owns it. Someone else's order is answered exactly like
     * a missing one, so its existence is not revealed.
     */
    public Uni<Order> find(UUID id, String owner) {
        return orders.find(id).map(order -> {
            if (order == null || !owns(owner, order)) {
                throw new OrderNotFoundException(id);
            }
            return order;
        });
    }

    /** Whether {@code owner} (null: anyone, an operator) may see {@code order}. */
    static boolean owns(String owner, Order order) {
        return owner == null || owner.equals(order.customerId());
    }
}
