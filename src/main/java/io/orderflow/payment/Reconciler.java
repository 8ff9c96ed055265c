package io.orderflow.payment;

import io.micrometer.core.instrument.MeterRegistry;
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
    private static final String QUERY_DECLINED = "query-declined";

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
    private final MeterRegistry registry;

    public Reconciler(PaymentAttempts attempts, ProviderCommands commands, PaymentProviders providers,
            PaymentCallbacks callbacks, Config config, Times times, Lifecycle lifecycle, MeterRegistry registry) {
        this.registry = registry;
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
            return callbacks.reconcile(provider, answer).map(reply -> said(refund.paymentReference(), reply));
        });
    }

    /** What a run says about one payment: its reference, and the ack and outcome the callback path gave. */
    private static String said(String reference, io.orderflow.common.Reply reply) {
        return reference + " " + reply.status() + " " + reply.headers().get(Acknowledgements.OUTCOME_HEADER);
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
                String what = unsettled(outcome);
                count(provider, what);
                if (what.equals(QUERY_DECLINED)) {
                    // the question was refused (a bad or revoked key, another account's payment): nothing is known
                    // about the payment, which stays pending and is asked about again after payments.reconcile.after
                    LOG.warnf("%s refused the query about attempt %s (%s): %s %s; it is asked again later",
                            provider.name(), attempt.id(), attempt.reference(), outcome.code(), outcome.message());
                }
                return Uni.createFrom().item(attempt.reference() + " " + what);
            }
            count(provider, "answered");
            LOG.infof("%s says attempt %s (%s) is %s: applying it", provider.name(), attempt.id(),
                    attempt.reference(), outcome.status());
            return callbacks.reconcile(provider, answer).map(reply -> said(attempt.reference(), reply));
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
        if (isReportedFailure(outcome)) {
            return new Notification.PaymentFailed(id, "reconciliation", subject, state.transactionId(), null, null,
                    state.reason());
        }
        return null;
    }

    /**
     * A payment the provider reports failed for good (Stripe: canceled, or a last payment error; WeChat Pay: CLOSED,
     * REVOKED, PAYERROR): an ERROR that carries the payment's state. An ERROR without one is the provider refusing
     * the query itself (Stripe 401, 404 resource_missing; WeChat SIGN_ERROR), which says nothing about the payment.
     */
    static boolean isReportedFailure(ProviderOutcome<PaymentState> outcome) {
        return outcome.is(ProviderOutcome.Status.ERROR) && outcome.value() != null && outcome.value().reason() != null;
    }

    /** Why a query settled nothing: still pending, the query refused, or no answer (timeout, circuit open). */
    private static String unsettled(ProviderOutcome<PaymentState> outcome) {
        return switch (outcome.status()) {
            case ERROR -> QUERY_DECLINED;
            case PROCESSED, PENDING -> "pending";
            case CANCELED, UNDEFINED -> "no-answer";
        };
    }

    private void count(PaymentProvider provider, String outcome) {
        registry.counter("orderflow.payments.reconciliation", "provider", provider.name(), "outcome", outcome)
                .increment();
    }
}
