package io.orderflow.webhooks;

import io.orderflow.common.Lifecycle;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.events.EventsConfig;
import io.orderflow.common.PeriodicJob;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.jboss.logging.Logger;

/**
 * Makes the deliveries that are due, from every replica at once: a round claims up to
 * {@link EventsConfig.Webhooks#batchSize()} ({@link WebhookDeliveries#claim}), sends them side by side and settles
 * each. A claim moves the delivery's next attempt past twice the send's deadline, so a replica killed mid-send
 * leaves it to be sent again then: at least once. An operator's retry goes through {@link #retryNow}.
 */
@ApplicationScoped
public class WebhookWorker {

    private static final Logger LOG = Logger.getLogger(WebhookWorker.class);

    /** Rounds per scheduled run at most, so that a run under a steady stream of deliveries ends. */
    static final int MAX_ROUNDS = 20;

    private final WebhookDeliveries deliveries;
    private final WebhookSender sender;
    private final WebhookMetrics metrics;
    private final EventsConfig.Webhooks config;
    private final RetrySchedule retries;
    private final Lifecycle lifecycle;
    private final MicrosecondClock time;
    private PeriodicJob periodic;

    public WebhookWorker(WebhookDeliveries deliveries, WebhookSender sender, WebhookMetrics metrics,
            EventsConfig config, Lifecycle lifecycle, MicrosecondClock time) {
        this.deliveries = deliveries;
        this.sender = sender;
        this.metrics = metrics;
        this.config = config.webhooks();
        this.retries = new RetrySchedule(this.config.retry(), () -> ThreadLocalRandom.current().nextDouble());
        this.lifecycle = lifecycle;
        this.time = time;
    }

    void start(@Observes StartupEvent event, Vertx vertx) {
        periodic = PeriodicJob.start(vertx, WebhookWorker.class, config.every(), this::scheduled,
                "Webhook delivery round failed, what is due stays owed for the next one");
    }

    void stop(@Observes ShutdownEvent event) {
        periodic.stop();
    }

    Uni<Void> scheduled() {
        if (!lifecycle.running()) {
            return Uni.createFrom().voidItem();
        }
        return deliverDue().replaceWithVoid();
    }

    /** Delivers what is due until a round finds less than a batch; returns how many attempts were made. */
    public Uni<Integer> deliverDue() {
        return rounds(0, 0);
    }

    private Uni<Integer> rounds(int done, int attempted) {
        return round().chain(n -> n < config.batchSize() || done + 1 >= MAX_ROUNDS
                ? Uni.createFrom().item(attempted + n) : rounds(done + 1, attempted + n));
    }

    private Uni<Integer> round() {
        Instant now = time.now();
        Instant lease = now.plus(config.timeout().multipliedBy(2)).plus(Duration.ofSeconds(5));
        return deliveries.claim(config.batchSize(), now, lease).chain(due -> {
            metrics.lag(due.stream().mapToDouble(WebhookDeliveries.Due::ageSeconds).max().orElse(0));
            if (due.isEmpty()) {
                return Uni.createFrom().item(0);
            }
            List<Uni<WebhookDeliveries.Attempt>> sends = due.stream().map(one -> attempt(one, false)).toList();
            return Uni.join().all(sends).andCollectFailures().replaceWith(due.size());
        });
    }

    /**
     * Sends the event to the endpoint again now, whatever its delivery's status, and answers the attempt; null when
     * the endpoint was never owed the event.
     */
    public Uni<WebhookDeliveries.Attempt> retryNow(UUID endpointId, UUID eventId) {
        return deliveries.drawManual(endpointId, eventId, time.now())
                .chain(due -> due == null ? Uni.createFrom().nullItem() : attempt(due, true));
    }

    private Uni<WebhookDeliveries.Attempt> attempt(WebhookDeliveries.Due due, boolean manual) {
        return sender.send(due).chain(outcome -> {
            metrics.attempted(outcome);
            Instant now = time.now();
            Instant retryAt = now.plus(retries.after(due.attempt()));
            Instant giveUpBefore = now.minus(config.retry().giveUpAfter());
            return deliveries.settle(due, outcome, manual, now, retryAt, giveUpBefore).map(settled -> {
                report(due, outcome, settled);
                return new WebhookDeliveries.Attempt(settled.attemptId(), due.eventId(), due.attempt(), outcome.statusCode(),
                        outcome.error(), outcome.durationMs(), manual, now);
            });
        });
    }

    private void report(WebhookDeliveries.Due due, WebhookDeliveries.Outcome outcome,
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
