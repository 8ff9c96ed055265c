package io.orderflow.payment.workers;

import io.orderflow.common.MicrosecondClock;
import io.orderflow.payment.PaymentProviders;
import io.orderflow.payment.attempts.PaymentAttempts;
import io.orderflow.payment.callbacks.PaymentCallbacks;
import io.orderflow.payment.commands.ProviderCommands;
import io.orderflow.payment.commands.RefundsConfig;
import io.orderflow.payment.reconcile.ReconciliationAnswers;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.PaymentProvider;
import io.orderflow.payment.spi.ProviderOutcome;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import org.jboss.logging.Logger;

/**
 * Sends a cancel the service owes a provider (a CANCEL of an order whose payment was pending) and reconciles the
 * answer. Closed: the attempt can no longer be paid. Refused (Stripe's PaymentIntent had already succeeded, WeChat
 * Pay's order was paid): the provider is asked what became of the payment, and a capture is applied exactly as its
 * notification would be — a capture after a cancel, so the order moves to REFUND_PENDING and owes its refund; a
 * payment already over needs nothing more. No answer: the command is retried, as a refund is.
 */
@ApplicationScoped
public class CancelCommands {

    private static final Logger LOG = Logger.getLogger(CancelCommands.class);

    private final ProviderCommands commands;
    private final PaymentProviders providers;
    private final PaymentAttempts attempts;
    private final PaymentCallbacks callbacks;
    private final RefundsConfig config;
    private final MicrosecondClock time;

    public CancelCommands(ProviderCommands commands, PaymentProviders providers, PaymentAttempts attempts,
            PaymentCallbacks callbacks, RefundsConfig config, MicrosecondClock time) {
        this.commands = commands;
        this.providers = providers;
        this.attempts = attempts;
        this.callbacks = callbacks;
        this.config = config;
        this.time = time;
    }

    Uni<Boolean> send(ProviderCommands.Cancel cancel) {
        PaymentProvider provider = providers.find(cancel.provider()).orElse(null);
        if (provider == null) {
            LOG.warnf("Cancel command %s is for %s, which this replica does not offer; it is left to one that does",
                    cancel.id(), cancel.provider());
            return retry(cancel, "provider not offered by this replica");
        }
        return provider.cancelPayment(cancel.paymentReference()).chain(outcome -> switch (outcome.status()) {
            case PROCESSED -> closed(provider, cancel, "PROCESSED");
            case ERROR -> outcome.isDeclined() ? reconcile(provider, cancel, outcome) : cannotAsk(provider, cancel,
                    outcome);
            case PENDING, CANCELED, UNDEFINED -> retry(cancel, outcome.status() + " " + outcome.code());
        });
    }

    /** The provider refused to cancel: what it says of the payment decides. */
    private Uni<Boolean> reconcile(PaymentProvider provider, ProviderCommands.Cancel cancel,
            ProviderOutcome<Void> refused) {
        String why = "ERROR " + refused.code();
        return attempts.findByReference(provider.name(), cancel.paymentReference()).chain(attempt -> attempt == null
                ? settle(cancel, "FAILED", why + "; no attempt has this reference", null)
                : provider.queryPayment(cancel.paymentReference()).chain(state -> {
                    Notification answer = ReconciliationAnswers.payment(attempt, state);
                    if (answer instanceof Notification.PaymentSucceeded captured) {
                        LOG.warnf("%s captured %s (%s) of cancelled order %s before it could be cancelled: a"
                                + " refund is owed", provider.name(), captured.transactionId(),
                                cancel.paymentReference(), cancel.orderId());
                        return callbacks.reconcile(provider, answer)
                                .chain(() -> settle(cancel, "DONE", why + "; captured, refund owed", null));
                    }
                    if (answer instanceof Notification.PaymentFailed) {
                        return closed(provider, cancel, why + "; the payment is over");
                    }
                    LOG.warnf("%s refused to cancel %s of order %s (%s) and says it is still %s; asked again later",
                            provider.name(), cancel.paymentReference(), cancel.orderId(), refused.code(),
                            state.status());
                    return retry(cancel, why + "; payment " + state.status());
                }));
    }

    /**
     * The provider would not let the service ask (a revoked key, another account's payment): nothing is known, the
     * cancel stays owed and is tried again later. An operator must fix the settings.
     */
    private Uni<Boolean> cannotAsk(PaymentProvider provider, ProviderCommands.Cancel cancel,
            ProviderOutcome<Void> refused) {
        LOG.errorf("%s would not let the service cancel %s of order %s: %s %s; the cancel stays owed and is tried"
                + " again later: check the provider's API key, its permissions and account", provider.name(),
                cancel.paymentReference(), cancel.orderId(), refused.code(), refused.message());
        return retry(cancel, "ERROR " + refused.refusal() + " " + refused.code());
    }

    private Uni<Boolean> closed(PaymentProvider provider, ProviderCommands.Cancel cancel, String outcome) {
        return attempts.markCancelled(provider.name(), cancel.paymentReference(), time.now())
                .chain(() -> settle(cancel, "DONE", outcome, null));
    }

    private Uni<Boolean> retry(ProviderCommands.Cancel cancel, String outcome) {
        LOG.warnf("%s: the cancel of %s (order %s) came to %s; it stays owed and is tried again later",
                cancel.provider(), cancel.paymentReference(), cancel.orderId(), outcome);
        return settle(cancel, "SENT", outcome, RetryBackoff.after(config, cancel.tries()));
    }

    /** Fenced by the claim, as a refund's outcome is ({@link ProviderCommands#settle}). */
    private Uni<Boolean> settle(ProviderCommands.Cancel cancel, String state, String outcome, Duration retryIn) {
        Instant now = time.now();
        return commands.settle(cancel.id(), cancel.claim(), state, null, outcome,
                retryIn == null ? null : now.plus(retryIn), now).invoke(settled -> {
            if (!settled) {
                LOG.warnf("Cancel command %s was claimed again while this replica called %s; its outcome (%s) is"
                        + " left to the newer claim", cancel.id(), cancel.provider(), outcome);
            }
        });
    }
}
