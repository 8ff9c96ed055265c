package io.orderflow.events;

import io.orderflow.common.SameStatementWrite;
import io.orderflow.common.TraceContext;
import io.orderflow.order.TransitionCommand;
import io.orderflow.order.TransitionParticipant;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An order's creation is an event of its own, a side event written by the create statement. A transition adds
 * nothing: its history row is its event ({@link Feed} renders it), so an applied move costs no write of the events
 * feature and a statement that moves nothing makes no event.
 */
@ApplicationScoped
public class OrderEventsParticipant implements TransitionParticipant {

    /** The creation's side event, read from the created row (the orders table's columns). */
    private static final String CREATION = "insert into order_side_events (order_id, type, order_version, at, trace)"
            + " select c.id, '" + EventTypes.ORDER_PREFIX + "created', 0, c.created_at, cast(:ev_trace as text)"
            + " from %s c";

    @Override
    public Uni<Participation> participate(TransitionCommand command, Instant now) {
        return Uni.createFrom().item(Participation.NONE);
    }

    @Override
    public List<SameStatementWrite> creationWrites() {
        return List.of(new SameStatementWrite() {
            @Override
            public String sql(String rows) {
                return CREATION.formatted(rows);
            }

            @Override
            public Map<String, Object> parameters() {
                Map<String, Object> values = new HashMap<>();
                values.put("ev_trace", TraceContext.current());
                return values;
            }
        });
    }
}
