package io.orderflow.payment.workers;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.Lifecycle;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.payment.PaymentProviders;
import io.orderflow.payment.commands.ProviderCommands;
import io.orderflow.payment.commands.RefundsConfig;
import io.orderflow.payment.refunds.RefundOutcomes;
import io.orderflow.payment.spi.PaymentProvider;
import io.orderflow.payment.spi.ProviderOutcome;
import io.orderflow.payment.spi.RefundRequest;
import io.orderflow.payment.spi.RefundState;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * Sends the refunds the service owes, exactly once in effect, and the cancels of pending payments a CANCEL owes
 * ({@link CancelCommands}), claimed and fenced alike. Claims due commands ({@code FOR UPDATE SKIP LOCKED},
 * safe with several replicas; a claim is a lease, so a replica that dies mid-call leaves the command to be retried),
 * calls the provider with the command's own key (Stripe {@code Idempotency-Key: orderflow-refund-<id>}, WeChat Pay
 * {@code out_refund_no}), and records the outcome. A timeout or 5xx (UNDEFINED) is retried with the same key after a
 * backoff; a command older than the provider's idempotency window (Stripe keeps keys 24 hours) looks its refund up
 * before sending again. The order moves to REFUNDED when the provider's refund notification arrives.
 */
@ApplicationScoped
public class RefundWorker {

    private static final Logger LOG = Logger.getLogger(RefundWorker.class);

    /** Refunds the provider would not let the service ask about, by provider and why: an operator's alarm. */
    public static final String BLOCKED = "orderflow.payments.refunds.blocked";
    static final String CANNOT_ASK = "cannot-ask";
    static final String LOOK_UP_REFUSED = "look-up-refused";
    /** The code of a refused look-up's outcome starts so. */
    private static final String LOOK_UP = "look-up:";

    private final ProviderCommands commands;
    private final PaymentProviders providers;
    private final RefundsConfig config;
    private final MicrosecondClock time;

    private final Lifecycle lifecycle;
    private final RefundOutcomes outcomes;
    private final CancelCommands cancels;

    private final MeterRegistry registry;

    public RefundWorker(ProviderCommands commands, PaymentProviders providers, RefundsConfig config, MicrosecondClock time,
            Lifecycle lifecycle, RefundOutcomes outcomes, CancelCommands cancels, MeterRegistry registry) {
        this.registry = registry;
        this.lifecycle = lifecycle;
        this.outcomes = outcomes;
        this.cancels = cancels;
        this.commands = commands;
        this.providers = providers;
        this.config = config;
        this.time = time;
    }

    /** Every series exists from startup, so an alert on blocked refunds has a zero to compare with. */
    void register(@Observes StartupEvent started) {
        for (String provider : providers.names()) {
            blocked(provider, CANNOT_ASK);
            blocked(provider, LOOK_UP_REFUSED);
        }
    }

    @Scheduled(every = "${payments.refunds.every:5s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            delayed = "5s")
    Uni<Void> scheduled() {
        if (!lifecycle.running()) {
            return Uni.createFrom().voidItem();
        }
        return runDue().onFailure().recoverWithItem(failure -> {
            lifecycle.runFailed(LOG, "Refund commands: the run failed, the next one retries", failure);
            return 0;
        }).replaceWithVoid();
    }

    /**
     * One pass over the due commands, refunds then cancels; the number handled. Commands are claimed one at a time,
     * each just before its call, so that every command's lease starts when its own call does (a batch claimed at
     * once would leave the last ones to run after their lease ran out, while another replica sends them too).
     */
    public Uni<Integer> runDue() {
        Instant passStart = time.now();
        return drain(config.batchSize(), 0, now -> commands.claimDue(passStart, now, config.lease(), 1)
                .chain(due -> due.isEmpty() ? Uni.createFrom().item(false) : send(due.get(0), now).replaceWith(true)))
                .chain(refunds -> drain(config.batchSize(), refunds, now -> commands.claimDueCancels(passStart, now,
                        config.lease(), 1).chain(due -> due.isEmpty() ? Uni.createFrom().item(false)
                                : cancels.send(due.get(0)).replaceWith(true))));
    }

    /**
     * Up to {@code left} commands, each claimed and sent by {@code next} (false when none is due by the pass's
     * start, so that one put back to the queue during the pass waits for the next).
     */
    private Uni<Integer> drain(int left, int handled, Function<Instant, Uni<Boolean>> next) {
        if (left == 0) {
            return Uni.createFrom().item(handled);
        }
        return next.apply(time.now()).chain(sent -> sent ? drain(left - 1, handled + 1, next)
                : Uni.createFrom().item(handled));
    }

    private Uni<Boolean> send(ProviderCommands.Refund refund, Instant now) {
        PaymentProvider provider = providers.find(refund.provider()).orElse(null);
        if (provider == null) {
            // a replica without the provider's settings (a rolling config change): not the command's failure;
            // another replica that has them, or this one once it has, sends it
            LOG.warnf("Refund command %s is for %s, which this replica does not offer; it is left to one that does",
                    refund.id(), refund.provider());
            return settle(refund, "SENT", null, "provider not offered by this replica",
                    RetryBackoff.after(config, refund.tries()));
        }
        RefundRequest request = refund.request();
        boolean pastWindow = refund.tries() > 1 && refund.createdAt() != null
                && refund.createdAt().isBefore(now.minus(config.providerKeyWindow()));
        return (pastWindow ? lookUpThenCreate(provider, request) : create(provider, request)).chain(outcome -> {
            String refundId = outcome.value() == null ? null : outcome.value().refundId();
            String what = outcome.status() + (outcome.code() == null ? "" : " " + outcome.code());
            return switch (outcome.status()) {
                case PROCESSED, PENDING -> settle(refund, "DONE", refundId, what, null);
                case ERROR -> outcome.isDeclined() ? failed(provider, refund, outcome, refundId, what)
                        : cannotAsk(provider, refund, outcome, what);
                case CANCELED, UNDEFINED -> settle(refund, "SENT", refundId, what,
                        RetryBackoff.after(config, refund.tries()));
            };
        });
    }

    /** The provider refused this refund, or reports it failed: the command and its refund FAILED, owed again. */
    private Uni<Boolean> failed(PaymentProvider provider, ProviderCommands.Refund refund,
            ProviderOutcome<RefundState> outcome, String refundId, String what) {
        LOG.errorf("%s refused the refund of %s (command %s): %s", provider.name(), refund.captureTxnId(),
                refund.id(), outcome.code());
        // one statement for both (a double capture's command has no refund row)
        return outcomes.failedWhenSent(provider.name(), refund.id(), refund.claim(), refundId, what,
                outcome.code() + ": " + outcome.message()).invoke(settled -> stale(refund, settled, what));
    }

    /**
     * The provider would not let the service ask (a revoked or mistyped key, a missing permission, a charge of
     * another account or mode), or refused the look-up: nothing is known of the refund, which stays owed and is tried
     * again after the backoff. An operator must fix the settings: an ERROR line and
     * {@code orderflow_payments_refunds_blocked_total{provider,reason}}.
     */
    private Uni<Boolean> cannotAsk(PaymentProvider provider, ProviderCommands.Refund refund,
            ProviderOutcome<RefundState> outcome, String what) {
        String reason = outcome.code() != null && outcome.code().startsWith(LOOK_UP) ? LOOK_UP_REFUSED : CANNOT_ASK;
        blocked(provider.name(), reason).increment();
        LOG.errorf("%s would not let the service ask about refund %s of %s (%s): %s %s; the refund stays owed and is"
                + " tried again later: check the provider's API key, its permissions and account", provider.name(),
                refund.id(), refund.captureTxnId(), reason, outcome.code(), outcome.message());
        return settle(refund, "SENT", null, what, RetryBackoff.after(config, refund.tries()));
    }

    /**
     * Past the provider's key window a new call would make a new refund, so the command's refund is looked up first
     * and made only when the provider answers that there is none. A look-up that got no answer (rate-limited, never
     * connected, circuit open) is not "none", nor is one the provider refused: the command is tried again later, and
     * nothing is sent now.
     */
    public static Uni<ProviderOutcome<RefundState>> lookUpThenCreate(PaymentProvider provider, RefundRequest request) {
        return lookUp(provider, request).chain(found -> found.isNotFound() ? create(provider, request)
                : Uni.createFrom().item(found));
    }

    /**
     * Makes the command's refund. A provider that says the capture was refunded in full already (Stripe's
     * {@code charge_already_refunded}) is asked for the capture's refunds: this command's among them is the answer;
     * none of them is a refusal of this refund.
     */
    public static Uni<ProviderOutcome<RefundState>> create(PaymentProvider provider, RefundRequest request) {
        return provider.createRefund(request).chain(created -> created.refusal() != ProviderOutcome.Refusal.ALREADY_DONE
                ? Uni.createFrom().item(created)
                : lookUp(provider, request).map(found -> found.isNotFound()
                        ? new ProviderOutcome<RefundState>(ProviderOutcome.Status.ERROR, null, created.code(),
                                created.message() + "; none of the capture's refunds is this command's",
                                ProviderOutcome.Refusal.DECLINED)
                        : found));
    }

    /**
     * The command's refund at its provider. A look-up the provider refused (an ERROR that carries no refund: 401,
     * 404) says nothing about the refund: it is a "could not ask", never the refund's failure.
     */
    private static Uni<ProviderOutcome<RefundState>> lookUp(PaymentProvider provider, RefundRequest request) {
        return provider.queryRefund(request).map(found -> found.is(ProviderOutcome.Status.ERROR)
                && found.value() == null ? new ProviderOutcome<RefundState>(ProviderOutcome.Status.ERROR, null,
                        LOOK_UP + found.code(), found.message(), ProviderOutcome.Refusal.CANNOT_ASK) : found);
    }

    private Counter blocked(String provider, String reason) {
        return registry.counter(BLOCKED, "provider", provider, "reason", reason);
    }

    /**
     * The outcome recorded only while this replica's claim holds (a stale one is logged and dropped); a retry
     * waits {@code retryIn} from the answer, not from the claim.
     */
    private Uni<Boolean> settle(ProviderCommands.Refund refund, String state, String refundId, String outcome,
            Duration retryIn) {
        Instant now = time.now();
        return commands.settle(refund.id(), refund.claim(), state, refundId, outcome,
                retryIn == null ? null : now.plus(retryIn), now).invoke(settled -> stale(refund, settled, outcome));
    }

    private static void stale(ProviderCommands.Refund refund, boolean settled, String outcome) {
        if (!settled) {
            LOG.warnf("Refund command %s was claimed again while this replica called %s; its outcome (%s) is left"
                    + " to the newer claim", refund.id(), refund.provider(), outcome);
        }
    }
}
