package io.orderflow.events;

import io.orderflow.common.SameStatementWrite;
import io.orderflow.order.TransitionCommand;
import io.orderflow.order.TransitionParticipant;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Every applied change of an order writes its event into the outbox in the change's own statement: a transition's
 * write reads the moved row (single and group-commit forms), a creation's the created row. A statement that moves
 * nothing (a duplicate, an illegal or refused request) inserts nothing, so such a request makes no event.
 */
@ApplicationScoped
public class OrderEventsParticipant implements TransitionParticipant {

    private static final Map<String, String> TYPES = Map.of("ev_event", "text", "ev_source", "text",
            "ev_ce_source", "text");

    private static final String SINGLE = OrderEventSql.insert("%1$s", "", "m.from_status", "cast(:ev_event as text)",
            "cast(:ev_source as text)", "cast(:ev_ce_source as text)");
    private static final String BATCH = OrderEventSql.insert("%1$s", " join %2$s v on v.id = m.id", "m.from_status",
            "v.ev_event", "v.ev_source", "v.ev_ce_source");
    private static final String CREATION = OrderEventSql.insert("%1$s", "", "cast(null as text)", "'CREATE'",
            "'" + TransitionCommand.API + "'", "cast(:ev_ce_source as text)");

    private final EventsConfig config;

    public OrderEventsParticipant(EventsConfig config) {
        this.config = config;
    }

    @Override
    public Uni<Participation> participate(TransitionCommand command, Instant now) {
        SameStatementWrite event = transitionEvent(command.event().name(), command.source(), config.source());
        return Uni.createFrom().item(new Participation(List.of(event), Map.of(), Map.of(),
                Participation.NONE.afterwards()));
    }

    /**
     * The outbox insert a transition's statement carries (also what the benchmark's pgbench anchor runs).
     *
     * @param event the table's event, {@code source} who made the change, {@code ceSource} the CloudEvent's source
     */
    public static SameStatementWrite transitionEvent(String event, String source, String ceSource) {
        return new OutboxWrite(SINGLE, BATCH, Map.of("ev_event", event, "ev_source", source,
                "ev_ce_source", ceSource));
    }

    /**
     * First among the statement's writes, so PostgreSQL runs it last: a refund's event written by the same statement
     * (a report of the whole capture refunded settling our pending refunds) precedes its order's event.
     */
    @Override
    public int writesAt() {
        return -1;
    }

    @Override
    public List<SameStatementWrite> creationWrites() {
        return List.of(new OutboxWrite(CREATION, null, Map.of("ev_ce_source", config.source())));
    }

    /**
     * An event's insert: its SQL names the written rows {@code %1$s} and, in the batch form (null when there is
     * none), the batch's values {@code %2$s}.
     */
    private record OutboxWrite(String single, String batch, Map<String, Object> parameters)
            implements SameStatementWrite {

        @Override
        public String sql(String rows) {
            return single.formatted(rows);
        }

        @Override
        public String batchSql(String rows, String values) {
            return batch == null ? null : batch.formatted(rows, values);
        }

        @Override
        public Map<String, String> parameterTypes() {
            return TYPES;
        }
    }
}
