package io.orderflow.payment;

import io.orderflow.common.Lifecycle;
import io.orderflow.common.Times;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * The janitor: asks providers about attempts that stayed pending longer than {@code payments.reconcile.after} (a lost
 * webhook, an endpoint that was down for days) and applies the answer through the same path and dedup as a callback.
 * Several replicas may run it at once: attempts are claimed with {@code FOR UPDATE SKIP LOCKED}. A reconciliation and
 * a webhook for the same payment at the same moment yield one transition (the compare-and-set takes one; the other
 * is a duplicate).
 */
@ApplicationScoped
public class Reconciler {

    private static final Logger LOG = Logger.getLogger(Reconciler.class);

    /** {@code payments.reconcile.*}; {@code every} (default 60s, {@code off} to stop it) schedules the janitor. */
    @ConfigMapping(prefix = "payments.reconcile")
    public interface Config {

        /** How often the janitor runs. */
        @WithDefault("60s")
        String every();

        /** How long an attempt may stay pending before the provider is asked about it. */
        @WithDefault("15m")
        Duration after();

        /** Attempts asked about per run. */
        @WithDefault("20")
        int batchSize();
    }

    private final PaymentAttempts attempts;
    private final PaymentProviders providers;
    private final PaymentCallbacks callbacks;
    private final Config config;
    private final Times times;

    private final Lifecycle lifecycle;

    public Reconciler(PaymentAttempts attempts, PaymentProviders providers, PaymentCallbacks callbacks, Config config,
            Times times, Lifecycle lifecycle) {
        this.lifecycle = lifecycle;
        this.attempts = attempts;
        this.providers = providers;
        this.callbacks = callbacks;
        this.config = config;
        this.times = times;
    }

    @Scheduled(every = "${payments.reconcile.every:60s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            delayed = "30s")
    Uni<Void> scheduled() {
        if (!lifecycle.running()) {
            return Uni.createFrom().voidItem();
        }
        return reconcile().onFailure().recoverWithItem(failure -> {
            LOG.warnf("Reconciliation failed, the next run retries: %s", failure.getMessage());
            return List.of();
        }).replaceWithVoid();
    }

    /** One run: the outcome (as a provider's ack would state it) for each attempt asked about. */
    public Uni<List<String>> reconcile() {
        Instant now = times.now();
        return attempts.claimStale(now.minus(config.after()), now, config.batchSize())
                .chain(stale -> Multi.createFrom().iterable(stale).onItem().transformToUniAndConcatenate(this::ask)
                        .collect().asList());
    }

    private Uni<String> ask(PaymentAttempt attempt) {
        PaymentProvider provider = providers.find(attempt.provider()).orElse(null);
        if (provider == null) {
            return Uni.createFrom().item("provider not offered");
        }
        return provider.queryPayment(attempt.reference()).chain(outcome -> {
            Notification answer = answer(attempt, outcome);
            if (answer == null) {
                return Uni.createFrom().item(outcome.status().name().toLowerCase());
            }
            LOG.infof("%s says attempt %s (%s) is %s: applying it", provider.name(), attempt.id(),
                    attempt.reference(), outcome.status());
            return callbacks.reconcile(provider, answer).map(reply -> answer.type() + " " + reply.status());
        });
    }

    /** What the provider's answer means as a notification; null when it settles nothing (still pending, unknown). */
    static Notification answer(PaymentAttempt attempt, ProviderOutcome<PaymentState> outcome) {
        Notification.Subject subject = new Notification.ByReference(attempt.reference());
        PaymentState state = outcome.value();
        String id = "reconcile:" + attempt.reference() + ":" + outcome.status().name().toLowerCase();
        if (outcome.is(ProviderOutcome.Status.PROCESSED) && state != null && state.transactionId() != null
                && state.amount() != null && state.currency() != null) {
            return new Notification.PaymentSucceeded(id, "reconciliation", subject, state.transactionId(),
                    state.amount(), state.currency());
        }
        if (outcome.is(ProviderOutcome.Status.ERROR)) {
            return new Notification.PaymentFailed(id, "reconciliation", subject,
                    state == null ? null : state.transactionId(), null, null,
                    state == null ? outcome.code() : state.reason());
        }
        return null;
    }
}
