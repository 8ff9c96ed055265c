package io.orderflow.events;

import io.orderflow.order.domain.OrderEvent;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every CloudEvent type the service emits: {@code io.orderflow.order.created}, one per event of the transition
 * table, and one per refund status. Subscribers (webhook endpoints) may only name these.
 */
public final class EventTypes {

    public static final String ORDER_PREFIX = "io.orderflow.order.";
    public static final String REFUND_PREFIX = "io.orderflow.refund.";

    private static final Set<String> ALL = all();

    private EventTypes() {
    }

    public static boolean known(String type) {
        return ALL.contains(type);
    }

    public static Set<String> known() {
        return ALL;
    }

    private static Set<String> all() {
        Set<String> types = new TreeSet<>();
        types.add(ORDER_PREFIX + "created");
        for (OrderEvent event : OrderEvent.values()) {
            types.add(ORDER_PREFIX + event.name().toLowerCase(Locale.ROOT));
        }
        for (String status : new String[] {"pending", "succeeded", "failed"}) {
            types.add(REFUND_PREFIX + status);
        }
        return Set.copyOf(types);
    }
}
