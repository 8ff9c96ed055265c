package io.orderflow.webhooks;

import io.orderflow.common.MicrosecondClock;
import io.orderflow.events.EventsConfig;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.jboss.logging.Logger;

/**
 * Attempts at deliveries that are owed (a row of {@link WebhookDeliveries}): the dispatcher's retries and an
 * operator's resend, each logged and settled by one statement, and what a settle says that an operator must hear of
 * (a delivery given up, an endpoint disabled).
 */
@ApplicationScoped
public class OwedDeliveries {

    private static final Logger LOG = Logger.getLogger(OwedDeliveries.class);

    private final WebhookDeliveries deliveries;
    private final WebhookSender sender;
    private final WebhookMetrics metrics;
    private final EventsConfig.Webhooks config;
    private final RetrySchedule retries;
    private final MicrosecondClock time;

    public OwedDeliveries(WebhookDeliveries deliveries, WebhookSender sender, WebhookMetrics metrics,
            EventsConfig config, MicrosecondClock time) {
        this.deliveries = deliveries;
        this.sender = sender;
        this.metrics = metrics;
        this.config = config.webhooks();
        this.retries = new RetrySchedule(this.config.retry(), () -> ThreadLocalRandom.current().nextDouble());
        this.time = time;
    }

    /** When a failed delivery is tried again, and how long an endpoint that keeps failing is paused. */
    RetrySchedule schedule() {
        return retries;
    }

    /**
     * Sends the event to the endpoint again now, whatever its delivery's status, and answers the attempt; null when
     * the endpoint has no delivery of the event (it went through at once, or was never owed).
     */
    public Uni<WebhookDeliveries.Attempt> retryNow(UUID endpointId, UUID eventId) {
        return deliveries.drawManual(endpointId, eventId, time.now())
                .chain(due -> due == null ? Uni.createFrom().nullItem() : attempt(due, true));
    }

    /** One attempt at an owed delivery, logged and settled. */
    Uni<WebhookDeliveries.Attempt> attempt(WebhookDeliveries.Due due, boolean manual) {
        return sender.send(due).chain(outcome -> {
            metrics.attempted(outcome);
            Instant now = time.now();
            return deliveries.settle(due, outcome, manual, now, now.plus(retries.after(due.attempt())),
                    now.minus(config.retry().giveUpAfter())).map(settled -> {
                        report(due, outcome, settled);
                        return new WebhookDeliveries.Attempt(settled.attemptId(), due.eventId(), due.attempt(),
                                outcome.statusCode(), outcome.error(), outcome.durationMs(), manual, now);
                    });
        });
    }

    void report(WebhookDeliveries.Due due, WebhookDeliveries.Outcome outcome,
            WebhookDeliveries.Settled settled) {
        if ("FAILED".equals(settled.deliveryStatus()) && !outcome.succeeded()) {
            metrics.gaveUp();
            LOG.warnf("Webhook delivery of event %s to endpoint %s given up after %d attempts (last: %s)",
                    due.eventId(), due.endpointId(), due.attempt(), what(outcome));
        }
        if (settled.disabledEndpoint()) {
            metrics.disabledEndpoint();
            LOG.warnf("Webhook endpoint %s disabled: its deliveries have failed for %s (last: %s); an operator"
                    + " enables it with POST /webhook-endpoints/%s/enable", due.endpointId(),
                    config.retry().giveUpAfter(), what(outcome), due.endpointId());
        }
    }

    private static String what(WebhookDeliveries.Outcome outcome) {
        return outcome.statusCode() != null ? "HTTP " + outcome.statusCode() : outcome.error();
    }
}
