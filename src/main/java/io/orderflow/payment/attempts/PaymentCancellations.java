package io.orderflow.payment.attempts;

import io.orderflow.payment.PaymentProviders;
import io.orderflow.payment.spi.PaymentProvider;
import io.orderflow.payment.spi.ProviderOutcome;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Payments at a provider that no order stands on any more are cancelled there once the statement of the PAY that
 * made them so is decided: the attempts a PAY replaced, and the payment a PAY created but did not move its order
 * with. Nothing here fails the PAY: a cancellation that does not happen is logged.
 */
@ApplicationScoped
public class PaymentCancellations {

    private static final Logger LOG = Logger.getLogger(PaymentCancellations.class);

    private final PaymentProviders providers;
    private final PaymentAttempts attempts;

    public PaymentCancellations(PaymentProviders providers, PaymentAttempts attempts) {
        this.providers = providers;
        this.attempts = attempts;
    }

    /** After the statement of a PAY that started attempt {@code attemptId} ({@code reference} at its provider). */
    Uni<Void> afterPay(boolean moved, UUID attemptId, PaymentProvider provider, String reference) {
        return moved ? cancelReplaced(attemptId) : abandon(attemptId, provider, reference);
    }

    /**
     * After a PAY that replaced a pending attempt: the attempts its own statement marked replaced (they name it in
     * {@code replaced_by}; the order's attempt as read before the statement may have been replaced by another PAY
     * meanwhile) are cancelled at their provider, so the shopper cannot finish paying them. Best effort: a success
     * that still arrives for one is a capture like any other.
     */
    private Uni<Void> cancelReplaced(UUID by) {
        return attempts.replacedBy(by).chain(replaced -> Multi.createFrom().iterable(replaced)
                .onItem().transformToUniAndConcatenate(attempt -> attempt.reference() == null ? Uni.createFrom()
                        .voidItem() : providers.find(attempt.provider()).map(p -> cancelAt(p, attempt.reference(),
                                "replaced attempt " + attempt.id())).orElse(Uni.createFrom().voidItem()))
                .collect().asList().replaceWithVoid())
                .onFailure().recoverWithUni(failure -> {
                    LOG.warnf("The attempts replaced by %s could not be read to cancel them: %s", by,
                            failure.getMessage());
                    return Uni.createFrom().voidItem();
                });
    }

    /**
     * A payment created for a PAY whose move was then decided against: cancelled, unless its attempt was stored.
     * The attempt id derives from the order and the Idempotency-Key, so copies of one PAY (on two replicas while
     * Redis is down) create the same PaymentIntent or out_trade_no; a copy that finds the attempt stored lost to
     * another copy of itself, which handed that very payment to the shopper. When the attempt cannot be read, the
     * payment is left as it is: a payment left payable is a capture to refund, a cancelled one a shopper stranded.
     */
    private Uni<Void> abandon(UUID attemptId, PaymentProvider provider, String reference) {
        if (reference == null) {
            return Uni.createFrom().voidItem();
        }
        return attempts.find(attemptId).chain(stored -> stored != null ? Uni.createFrom().voidItem()
                : cancelAt(provider, reference, "a payment left behind by a PAY that did not move the order"))
                .onFailure().recoverWithUni(failure -> {
                    LOG.warnf("%s: payment %s of a PAY that did not move the order is left as it is; its attempt"
                            + " could not be read: %s", provider.name(), reference, failure.getMessage());
                    return Uni.createFrom().voidItem();
                });
    }

    private static Uni<Void> cancelAt(PaymentProvider provider, String reference, String what) {
        return provider.cancelPayment(reference).invoke(outcome -> {
            if (!outcome.is(ProviderOutcome.Status.PROCESSED)) {
                LOG.warnf("%s: cancelling %s (%s) came to %s %s", provider.name(), what, reference, outcome.status(),
                        outcome.code());
            }
        }).replaceWithVoid().onFailure().recoverWithNull().replaceWithVoid();
    }
}
