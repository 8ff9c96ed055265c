package io.orderflow.payment;

import io.orderflow.common.Lifecycle;
import io.orderflow.common.Times;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import org.jboss.logging.Logger;

/**
 * Sends the refunds the service owes, exactly once in effect. Claims due commands ({@code FOR UPDATE SKIP LOCKED},
 * safe with several replicas; a claim is a lease, so a replica that dies mid-call leaves the command to be retried),
 * calls the provider with the command's own key (Stripe {@code Idempotency-Key: orderflow-refund-<id>}, WeChat Pay
 * {@code out_refund_no}), and records the outcome. A timeout or 5xx (UNDEFINED) is retried with the same key after a
 * backoff; a command older than the provider's idempotency window (Stripe keeps keys 24 hours) looks its refund up
 * before sending again. The order moves to REFUNDED when the provider's refund notification arrives.
 */
@ApplicationScoped
public class RefundWorker {

    private static final Logger LOG = Logger.getLogger(RefundWorker.class);

    private final ProviderCommands commands;
    private final PaymentProviders providers;
    private final RefundsConfig config;
    private final Times times;

    private final Lifecycle lifecycle;

    public RefundWorker(ProviderCommands commands, PaymentProviders providers, RefundsConfig config, Times times,
            Lifecycle lifecycle) {
        this.lifecycle = lifecycle;
        this.commands = commands;
        this.providers = providers;
        this.config = config;
        this.times = times;
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

    /** One pass over the due commands; the number handled. */
    public Uni<Integer> runDue() {
        Instant now = times.now();
        return commands.claimDue(now, config.lease(), config.batchSize())
                .chain(due -> Multi.createFrom().iterable(due).onItem().transformToUniAndConcatenate(r -> send(r, now))
                        .collect().asList().map(java.util.List::size));
    }

    private Uni<Void> send(ProviderCommands.Refund refund, Instant now) {
        PaymentProvider provider = providers.find(refund.provider()).orElse(null);
        if (provider == null) {
            return commands.settle(refund.id(), "FAILED", null, "provider not offered", null, now);
        }
        RefundRequest request = refund.request();
        boolean pastWindow = refund.tries() > 1 && refund.createdAt() != null
                && refund.createdAt().isBefore(now.minus(config.providerKeyWindow()));
        Uni<ProviderOutcome<RefundState>> call = pastWindow
                ? provider.queryRefund(request).chain(found -> found.is(ProviderOutcome.Status.CANCELED)
                        ? provider.createRefund(request) : Uni.createFrom().item(found))
                : provider.createRefund(request);
        return call.chain(outcome -> {
            String refundId = outcome.value() == null ? null : outcome.value().refundId();
            String what = outcome.status() + (outcome.code() == null ? "" : " " + outcome.code());
            return switch (outcome.status()) {
                case PROCESSED, PENDING -> commands.settle(refund.id(), "DONE", refundId, what, null, now);
                case ERROR -> {
                    LOG.errorf("%s refused the refund of %s (command %s): %s", provider.name(),
                            refund.captureTxnId(), refund.id(), outcome.code());
                    yield commands.settle(refund.id(), "FAILED", refundId, what, null, now);
                }
                case CANCELED, UNDEFINED -> commands.settle(refund.id(), "SENT", refundId, what,
                        now.plus(backoff(refund.tries())), now);
            };
        });
    }

    /** 1s, 2s, 4s ... capped at {@code max-backoff}. */
    private Duration backoff(int tries) {
        Duration next = config.firstBackoff().multipliedBy(1L << Math.min(tries - 1, 20));
        return next.compareTo(config.maxBackoff()) > 0 ? config.maxBackoff() : next;
    }
}
