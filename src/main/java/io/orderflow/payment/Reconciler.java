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
 * The janitor: asks providers about attempts that stayed pending longer than {@code payments.reconcile.after}, and
 * about refunds sent as long ago whose capture is still not known refunded (a lost webhook, an endpoint that was down
 * for days), and applies the answer through the same path and dedup as a callback. Several replicas may run it at
 * once: attempts and refund commands are claimed with {@code FOR UPDATE SKIP LOCKED}. A reconciliation and
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
    private final ProviderCommands commands;
    private final PaymentProviders providers;
    private final PaymentCallbacks callbacks;
    private final Config config;
    private final Times times;

    private final Lifecycle lifecycle;

    public Reconciler(PaymentAttempts attempts, ProviderCommands commands, PaymentProviders providers,
            PaymentCallbacks callbacks, Config config, Times times, Lifecycle lifecycle) {
        this.commands = commands;
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

    /**
     * One run: the outcome (as a provider's ack would state it) for each attempt asked about, then for each refund
     * sent whose notification never came.
     */
    public Uni<List<String>> reconcile() {
        Instant now = times.now();
        Instant staleBefore = now.minus(config.after());
        Uni<List<String>> payments = attempts.claimStale(staleBefore, now, config.batchSize())
                .chain(stale -> Multi.createFrom().iterable(stale).onItem().transformToUniAndConcatenate(this::ask)
                        .collect().asList());
        return payments.chain(asked -> commands.claimUnconfirmed(staleBefore, now, config.batchSize())
                .chain(sent -> Multi.createFrom().iterable(sent).onItem()
                        .transformToUniAndConcatenate(this::askAboutRefund).collect().asList())
                .map(refunds -> {
                    List<String> all = new java.util.ArrayList<>(asked);
                    all.addAll(refunds);
                    return all;
                }));
    }

    private Uni<String> askAboutRefund(ProviderCommands.Refund refund) {
        PaymentProvider provider = providers.find(refund.provider()).orElse(null);
        if (provider == null) {
            return Uni.createFrom().item("provider not offered");
        }
        RefundRequest request = new RefundRequest(refund.id(), refund.paymentReference(), refund.captureTxnId(),
                refund.amount(), refund.currency(), refund.refundId());
        return provider.queryRefund(request).chain(outcome -> {
            Notification answer = refundAnswer(refund, outcome);
            if (answer == null) {
                return Uni.createFrom().item(outcome.status().name().toLowerCase());
            }
            LOG.infof("%s says the refund of %s (command %s) is done: applying it", provider.name(),
                    refund.captureTxnId(), refund.id());
            return callbacks.reconcile(provider, answer).map(reply -> answer.type() + " " + reply.status());
        });
    }

    /** A refund the provider reports done, as its notification would have said it; null while it is not. */
    static Notification refundAnswer(ProviderCommands.Refund refund, ProviderOutcome<RefundState> outcome) {
        if (!outcome.is(ProviderOutcome.Status.PROCESSED) || refund.paymentReference() == null) {
            return null;
        }
        RefundState state = outcome.value();
        String refundId = state != null && state.refundId() != null ? state.refundId() : refund.refundId();
        return new Notification.RefundSucceeded("reconcile:refund:" + refund.id(), "reconciliation",
                new Notification.ByReference(refund.paymentReference()), refundId, refund.captureTxnId(),
                refund.amount(), refund.currency());
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
