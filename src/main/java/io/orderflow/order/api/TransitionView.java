package io.orderflow.order.api;

import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.order.domain.Transition;
import java.time.Instant;

/** One history entry as the API shows it; {@code actor} is null for API moves recorded before actors were kept. */
public record TransitionView(int seq, OrderEvent event, OrderStatus from, OrderStatus to, Instant at, String source,
        String actor) {

    public static TransitionView of(Transition t) {
        return new TransitionView(t.seq(), t.event(), t.from(), t.to(), t.at(), t.source(), t.actor());
    }
}
