package io.orderflow.payment.callbacks;

import io.orderflow.common.DatabaseFailures;
import io.orderflow.common.Reply;
import io.orderflow.idempotency.KeyClaim;
import io.orderflow.order.OrderService;
import io.orderflow.order.TransitionCommand;
import io.orderflow.order.TransitionResult;
import io.orderflow.order.domain.AmountMismatchException;
import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.IllegalTransitionException;
import io.orderflow.order.domain.NotConcernedException;
import io.orderflow.order.domain.OrderNotFoundException;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.PaymentProvider;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A matched provider report through the one transition path API calls take ({@link OrderService#transition}), with
 * the delivery's idempotency record in the same statement. The path's answer — moved, already taken, or the refusal
 * it decided (unknown order, illegal, amount mismatch, not the order's payment, a transaction id taken) — is judged by
 * {@link ReportVerdict} and carried out by {@link ReportActions}.
 */
@ApplicationScoped
public class ReportTransitions {

    private final OrderService orders;
    private final ReportActions actions;
    private final Acknowledgements acks;

    public ReportTransitions(OrderService orders, ReportActions actions, Acknowledgements acks) {
        this.orders = orders;
        this.actions = actions;
        this.acks = acks;
    }

    /**
     * A transaction id belongs to one order: the capture row the move writes in its statement makes a reuse on
     * another order fail the whole statement (nothing moves), and a second capture that names another order's
     * transaction is not kept; both are answered {@code txn-reused}. No read before the move: one round trip.
     *
     * @param actor who the history names: the provider, or the janitor that asked it
     */
    Uni<Reply> apply(PaymentProvider provider, Notification.Correlated notification, MatchedAttempt match,
            KeyClaim claim, String actor) {
        PaymentReport report = PaymentReport.of(notification, match);
        String name = provider.name();
        EventDetails.ProviderReport details = new EventDetails.ProviderReport(name, report.transactionId(),
                report.amount(), report.currency(), match.attemptId());
        TransitionCommand command = new TransitionCommand(match.orderId(), report.event(), details, null, name,
                actor, notification.id(), null);
        return orders.transition(command, claim, result -> acks.acknowledge(provider, notification,
                        ((ReportVerdict.Answered) ReportVerdict.of(report, match, moved(result))).outcome(),
                        result.order()))
                .chain(done -> actions.act(provider, notification, report, match,
                        ReportVerdict.of(report, match, moved(done.result())), done.reply()))
                // as before the verdict: a refusal while carrying out a double capture is judged the same way
                .onFailure(ReportTransitions::isRefusal).recoverWithUni(failure -> actions.act(provider,
                        notification, report, match, ReportVerdict.of(report, match, refusal(failure)), null));
    }

    private static TransitionOutcome moved(TransitionResult result) {
        return new TransitionOutcome.Moved(result.applied(), result.order());
    }

    private static boolean isRefusal(Throwable failure) {
        return failure instanceof OrderNotFoundException || failure instanceof IllegalTransitionException
                || failure instanceof AmountMismatchException || failure instanceof NotConcernedException
                || isCaptureTaken(failure);
    }

    private static TransitionOutcome refusal(Throwable failure) {
        if (failure instanceof OrderNotFoundException) {
            return new TransitionOutcome.NoOrder();
        }
        if (failure instanceof IllegalTransitionException illegal) {
            return new TransitionOutcome.Illegal(illegal.current(), illegal.getMessage());
        }
        if (failure instanceof AmountMismatchException mismatch) {
            return new TransitionOutcome.AmountMismatch(mismatch.order(), mismatch.getMessage());
        }
        if (failure instanceof NotConcernedException notConcerned) {
            return new TransitionOutcome.NotConcerned(notConcerned.order());
        }
        return new TransitionOutcome.CaptureTaken();
    }

    /** The statement failed on {@code payment_captures}' primary key: another order took the transaction id. */
    private static boolean isCaptureTaken(Throwable failure) {
        return DatabaseFailures.causes(failure).stream()
                .anyMatch(t -> t.getMessage() != null && t.getMessage().contains("payment_captures_pkey"));
    }
}
