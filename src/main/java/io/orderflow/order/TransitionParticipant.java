package io.orderflow.order;

import io.orderflow.common.SameStatementWrite;
import io.orderflow.order.domain.OrderField;
import io.smallrye.mutiny.Uni;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Another module's part in an order's transition, so that what it records commits with the move or not at all (the
 * payment module starts a payment attempt with PAY and records captures with a provider's report). The order module
 * knows participants only through this interface and never imports them. Asked once per transition request, before
 * the statement; a failure refuses the request.
 */
public interface TransitionParticipant {

    /** What this participant adds to {@code command}'s statement; {@link Participation#NONE} when nothing. */
    Uni<Participation> participate(TransitionCommand command, Instant now);


    /**
     * What this participant adds to the statement that creates an order: writes reading the created row (the
     * orders table's columns). None by default.
     */
    default List<SameStatementWrite> creationWrites() {
        return List.of();
    }

    /**
     * Members to add again to the replayed answer of a keyed request that moved an order: the first answer's
     * {@link Participation#reply()} is never stored, so it is read again from where it lives (the payment
     * module re-reads the shopper's credential from the provider). Empty when there is nothing to add.
     */
    default Uni<Map<String, Object>> replayReply(TransitionCommand command) {
        return Uni.createFrom().item(Map.of());
    }

    /**
     * @param writes ride in the transition statement, reading the moved row
     * @param changes order fields the move sets besides the event's own (the payment attempt PAY starts)
     * @param reply members added to the answer of the request that moved the order (what the shop's front end needs
     *        to let the shopper pay); never stored
     * @param afterwards runs once the statement's outcome is known: {@code true} when it moved the order, {@code false}
     *        when it was decided not to (not after a failure whose outcome is unknown)
     */
    record Participation(List<SameStatementWrite> writes, Map<OrderField, Object> changes, Map<String, Object> reply,
            Function<Boolean, Uni<Void>> afterwards) {

        public static final Participation NONE = new Participation(List.of(), Map.of(), Map.of(),
                moved -> Uni.createFrom().voidItem());

        public Participation {
            writes = List.copyOf(writes);
            Map<OrderField, Object> fields = new EnumMap<>(OrderField.class);
            fields.putAll(changes);
            changes = Collections.unmodifiableMap(fields);
            reply = Map.copyOf(reply);
        }

        /** This participation and {@code other}'s together. */
        public Participation and(Participation other) {
            List<SameStatementWrite> w = new ArrayList<>(writes);
            w.addAll(other.writes);
            Map<OrderField, Object> c = new EnumMap<>(OrderField.class);
            c.putAll(changes);
            c.putAll(other.changes);
            Map<String, Object> r = new HashMap<>(reply);
            r.putAll(other.reply);
            return new Participation(w, c, r,
                    moved -> afterwards.apply(moved).chain(() -> other.afterwards.apply(moved)));
        }
    }
}
