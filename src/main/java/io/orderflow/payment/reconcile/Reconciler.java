package io.orderflow.payment.reconcile;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.Lifecycle;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.Reply;
import io.orderflow.payment.PaymentProviders;
import io.orderflow.payment.attempts.PaymentAttempt;
import io.orderflow.payment.attempts.PaymentAttempts;
import io.orderflow.payment.callbacks.Acknowledgements;
import io.orderflow.payment.callbacks.PaymentCallbacks;
import io.orderflow.payment.commands.ProviderCommands;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.PaymentProvider;
import io.orderflow.payment.spi.PaymentState;
import io.orderflow.payment.spi.ProviderOutcome;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * The janitor: asks providers about attempts that stayed pending longer than {@code payments.reconcile.after}, and
 * about refunds sent as long ago that are still PENDING (a lost webhook, an endpoint that was down for days), and
 * applies the answer ({@link ReconciliationAnswers}: every provider state mapped, succeeded and failed alike) through
 * the same path and dedup as a callback. Several replicas may run it at once: attempts and refund commands are
 * claimed with {@code FOR UPDATE SKIP LOCKED}. A reconciliation and a webhook for the same payment at the same moment
 * yield one transition (the compare-and-set takes one; the other is a duplicate).
 */
@ApplicationScoped
public class Reconciler {

    private static final Logger LOG = Logger.getLogger(Reconciler.class);

    private final PaymentAttempts attempts;
    private final ProviderCommands commands;
    private final PaymentProviders providers;
    private final PaymentCallbacks callbacks;
    private final ReconcileConfig config;
    private final MicrosecondClock time;
    private final Lifecycle lifecycle;
    private final MeterRegistry registry;

    public Reconciler(PaymentAttempts attempts, ProviderCommands commands, PaymentProviders providers,
            PaymentCallbacks callbacks, ReconcileConfig config, MicrosecondClock time, Lifecycle lifecycle,
            MeterRegistry registry) {
        this.attempts = attempts;
        this.commands = commands;
        this.providers = providers;
        this.callbacks = callbacks;
        this.config = config;
        this.time = time;
        this.lifecycle = lifecycle;
        this.registry = registry;
    }

    @Scheduled(every = "${payments.reconcile.every:60s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            delayed = "30s")
    Uni<Void> scheduled() {
        if (!lifecycle.running()) {
            return Uni.createFrom().voidItem();
        }
        return reconcile().onFailure().recoverWithItem(failure -> {
            lifecycle.runFailed(LOG, "Reconciliation failed, the next run retries", failure);
            return List.of();
        }).replaceWithVoid();
    }

    /**
     * One run: the outcome (as a provider's ack would state it) for each attempt asked about, then for each refund
     * sent whose notification never came.
     */
    public Uni<List<String>> reconcile() {
        Instant now = time.now();
        Instant staleBefore = now.minus(config.after());
        return attempts.claimStale(staleBefore, now, config.batchSize()).chain(stale -> inTurn(stale, this::ask))
                .chain(asked -> commands.claimUnconfirmed(staleBefore, now, config.batchSize())
                        .chain(sent -> inTurn(sent, this::askAboutRefund))
                        .map(refunds -> {
                            List<String> all = new ArrayList<>(asked);
                            all.addAll(refunds);
                            return all;
                        }));
    }

    /** Asks about one attempt; what was heard is recorded with it (the stuck-payments list shows it). */
    private Uni<String> ask(PaymentAttempt attempt) {
        return withProvider(attempt.provider(), provider -> provider.queryPayment(attempt.reference())
                .chain(outcome -> {
                    Notification answer = ReconciliationAnswers.payment(attempt, outcome);
                    return attempts.recordAnswer(attempt.id(), ReconciliationAnswers.heard(outcome, answer != null),
                            time.now()).chain(() -> apply(provider, attempt, outcome, answer));
                }));
    }

    /** The answer applied through the callbacks' path, or, when it settles nothing, counted and left for later. */
    private Uni<String> apply(PaymentProvider provider, PaymentAttempt attempt, ProviderOutcome<PaymentState> outcome,
            Notification answer) {
        if (answer == null) {
            String what = ReconciliationAnswers.unsettled(outcome);
            count(provider, what);
            if (what.equals(ReconciliationAnswers.QUERY_DECLINED)) {
                // the question was refused (a bad or revoked key, another account's payment): nothing
                // is known about the payment, which stays pending and is asked about again after
                // payments.reconcile.after
                LOG.warnf("%s refused the query about attempt %s (%s): %s %s; it is asked again later",
                        provider.name(), attempt.id(), attempt.reference(), outcome.code(),
                        outcome.message());
            }
            return Uni.createFrom().item(attempt.reference() + " " + what);
        }
        count(provider, "answered");
        LOG.infof("%s says attempt %s (%s) is %s: applying it", provider.name(), attempt.id(),
                attempt.reference(), outcome.status());
        return callbacks.reconcile(provider, answer).map(reply -> said(attempt.reference(), reply));
    }

    private Uni<String> askAboutRefund(ProviderCommands.Refund refund) {
        return withProvider(refund.provider(), provider -> provider.queryRefund(refund.request()).chain(outcome -> {
            Notification answer = ReconciliationAnswers.refund(refund, outcome);
            if (answer == null) {
                String what = ReconciliationAnswers.unsettledRefund(outcome);
                count(provider, "refund-" + what);
                if (!what.equals("pending")) {
                    LOG.warnf("%s could not say what became of refund %s of %s: %s (%s) %s; it is asked again later",
                            provider.name(), refund.id(), refund.captureTxnId(), what, outcome.code(),
                            outcome.message());
                }
                return Uni.createFrom().item(refund.id() + " " + what);
            }
            count(provider, "answered");
            LOG.infof("%s says refund %s of %s is %s: applying it", provider.name(), refund.id(),
                    refund.captureTxnId(), outcome.status());
            return callbacks.reconcile(provider, answer).map(reply -> said(refund.paymentReference(), reply));
        }));
    }

    private Uni<String> withProvider(String name, Function<PaymentProvider, Uni<String>> question) {
        return providers.find(name).map(question).orElseGet(() -> Uni.createFrom().item("provider not offered"));
    }

    /** One question at a time, in the order claimed. */
    private static <T> Uni<List<String>> inTurn(List<T> items, Function<T, Uni<String>> question) {
        return Multi.createFrom().iterable(items).onItem().transformToUniAndConcatenate(question::apply).collect()
                .asList();
    }

    /** What a run says about one payment: its reference, and the ack and outcome the callback path gave. */
    private static String said(String reference, Reply reply) {
        return reference + " " + reply.status() + " " + reply.headers().get(Acknowledgements.OUTCOME_HEADER);
    }

    private void count(PaymentProvider provider, String outcome) {
        registry.counter("orderflow.payments.reconciliation", "provider", provider.name(), "outcome", outcome)
                .increment();
    }
}
