package io.orderflow.events;

import io.smallrye.mutiny.Uni;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.hibernate.reactive.mutiny.Mutiny;

/**
 * Work that must commit with the relay's marking of events as published, in its transaction: what is owed because
 * an event went out (a webhook delivery per subscribed endpoint) is then written exactly once per event, however
 * often a crashed relay publishes it again.
 */
public interface PublishedEventsParticipant {

    /** Called in the relay's transaction, after {@code eventIds} (outbox ids) were marked published. */
    Uni<Void> published(Mutiny.StatelessSession session, List<UUID> eventIds, Instant at);
}
