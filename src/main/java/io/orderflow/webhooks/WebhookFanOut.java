package io.orderflow.webhooks;

import io.orderflow.events.PublishedEventsParticipant;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.hibernate.reactive.mutiny.Mutiny;

/**
 * Owes each event the relay publishes to every enabled endpoint that takes its type, in the relay's transaction:
 * a delivery row exists exactly when the event is published, and survives any restart.
 */
@ApplicationScoped
public class WebhookFanOut implements PublishedEventsParticipant {

    private final WebhookDeliveries deliveries;

    public WebhookFanOut(WebhookDeliveries deliveries) {
        this.deliveries = deliveries;
    }

    @Override
    public Uni<Void> published(Mutiny.StatelessSession session, List<UUID> eventIds, Instant at) {
        return deliveries.fanOut(session, eventIds, at).replaceWithVoid();
    }
}
