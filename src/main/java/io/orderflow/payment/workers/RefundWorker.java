package io.orderflow.payment.workers;

import io.orderflow.common.Lifecycle;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.payment.PaymentProviders;
import io.orderflow.payment.commands.ProviderCommands;
import io.orderflow.payment.commands.RefundsConfig;
import io.orderflow.payment.refunds.RefundOutcomes;
import io.orderflow.payment.refunds.RefundView;
import io.orderflow.payment.spi.PaymentProvider;
import io.orderflow.payment.spi.ProviderOutcome;
import io.orderflow.payment.spi.RefundRequest;
import io.orderflow.payment.spi.RefundState;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
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

    /** Who settles a refund the provider refused when asked to make it. */
    static final String ACTOR = "refund-worker";

    private final ProviderCommands commands;
    private final PaymentProviders providers;
    private final RefundsConfig config;
    private final MicrosecondClock time;

    private final Lifecycle lifecycle;
    private final RefundOutcomes outcomes;
    private final CancelCommands cancels;

    public RefundWorker(ProviderCommands commands, PaymentProviders providers, RefundsConfig config, MicrosecondClock time,
            Lifecycle lifecycle, RefundOutcomes outcomes, CancelCommands cancels) {
        this.lifecycle = lifecycle;
        this.outcomes = outcomes;
        this.cancels = cancels;
        this.commands = commands;
        this.providers = providers;
        this.config = config;
        this.time = time;
    }

    @Scheduled(every = "${payments.refunds.every:5s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            delayed = "5s")
    Uni<Void> scheduled() {
        if (!lifecycle.running()) {
            return Uni.createFrom().voidItem();
        }
        return runDue().onFailure().recoverWithItem(failure -> {
            LOG.warnf("Refund commands: the run failed, the next one retries: %s", failure.getMessage());
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
                    backoff(config, refund.tries()));
        }
        RefundRequest request = refund.request();
        boolean pastWindow = refund.tries() > 1 && refund.createdAt() != null
                && refund.createdAt().isBefore(now.minus(config.providerKeyWindow()));
        return (pastWindow ? lookUpThenCreate(provider, request) : provider.createRefund(request)).chain(outcome -> {
            String refundId = outcome.value() == null ? null : outcome.value().refundId();
            String what = outcome.status() + (outcome.code() == null ? "" : " " + outcome.code());
            return switch (outcome.status()) {
                case PROCESSED, PENDING -> settle(refund, "DONE", refundId, what, null);
                case ERROR -> {
                    LOG.errorf("%s refused the refund of %s (command %s): %s", provider.name(),
                            refund.captureTxnId(), refund.id(), outcome.code());
                    // the command's refund (a double capture's has none) failed: owed again
                    yield settle(refund, "FAILED", refundId, what, null).call(settled -> settled
                            ? outcomes.settle(provider.name(), ACTOR, refund.id(), RefundView.Status.FAILED,
                                    refundId, outcome.code() + ": " + outcome.message())
                            : Uni.createFrom().voidItem());
                }
                case CANCELED, UNDEFINED -> settle(refund, "SENT", refundId, what, backoff(config, refund.tries()));
            };
        });
    }

    /**
     * Past the provider's key window a new call would make a new refund, so the command's refund is looked up first
     * and made only when the provider answers that there is none. A look-up that got no answer (rate-limited, never
     * connected, circuit open) is not "none": the command is tried again later, and nothing is sent now.
     */
    public static Uni<ProviderOutcome<RefundState>> lookUpThenCreate(PaymentProvider provider, RefundRequest request) {
        return provider.queryRefund(request).chain(found -> found.isNotFound() ? provider.createRefund(request)
                : Uni.createFrom().item(found));
    }

    /**
     * The outcome recorded only while this replica's claim holds (a stale one is logged and dropped); a retry
     * waits {@code retryIn} from the answer, not from the claim.
     */
    private Uni<Boolean> settle(ProviderCommands.Refund refund, String state, String refundId, String outcome,
            Duration retryIn) {
        Instant now = time.now();
        return commands.settle(refund.id(), refund.claim(), state, refundId, outcome,
                retryIn == null ? null : now.plus(retryIn), now).invoke(settled -> {
            if (!settled) {
                LOG.warnf("Refund command %s was claimed again while this replica called %s; its outcome (%s) is"
                        + " left to the newer claim", refund.id(), refund.provider(), outcome);
            }
        });
    }

    /** 1s, 2s, 4s ... capped at {@code max-backoff}. */
    static Duration backoff(RefundsConfig config, int tries) {
        Duration next = config.firstBackoff().multipliedBy(1L << Math.min(tries - 1, 20));
        return next.compareTo(config.maxBackoff()) > 0 ? config.maxBackoff() : next;
    }
}
