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
 * the delivery's idempotency record in the same statement. When the order moves, or the report is a duplicate, the
 * provider is acknowledged; when the order cannot take it, the refusal the transition path decided (unknown order,
 * illegal, amount mismatch, not the order's payment, a transaction id taken) is handed to whoever decides it.
 */
@ApplicationScoped
public class ReportTransitions {

    private final OrderService orders;
    private final AnomalousReports anomalous;
    private final ForeignPaymentReports others;
    private final Acknowledgements acks;

    public ReportTransitions(OrderService orders, AnomalousReports anomalous, ForeignPaymentReports others,
            Acknowledgements acks) {
        this.orders = orders;
        this.anomalous = anomalous;
        this.others = others;
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
        return orders.transition(command, claim, result -> ack(provider, notification, report, result))
                .chain(done -> ForeignPaymentReports.isDoubleCapture(report, done.result())
                        ? others.doubleCapture(provider, notification, report, match, done.result().order(),
                                done.reply())
                        : Uni.createFrom().item(done.reply()))
                .onFailure(OrderNotFoundException.class).recoverWithUni(() -> anomalous.unknownOrder(provider,
                        notification, report, match.orderId()))
                .onFailure(IllegalTransitionException.class).recoverWithUni(failure -> anomalous.illegal(provider,
                        notification, report, match.orderId(), (IllegalTransitionException) failure))
                .onFailure(AmountMismatchException.class).recoverWithUni(failure -> others.amountMismatch(provider,
                        notification, report, match, (AmountMismatchException) failure))
                .onFailure(NotConcernedException.class).recoverWithUni(failure -> others.notConcerned(provider,
                        notification, report, match, ((NotConcernedException) failure).order()))
                .onFailure(ReportTransitions::isCaptureTaken).recoverWithUni(() -> others.transactionTaken(provider,
                        notification, report, match));
    }

    private Reply ack(PaymentProvider provider, Notification notification, PaymentReport report,
            TransitionResult result) {
        String outcome = result.applied() ? "applied" : ForeignPaymentReports.isDoubleCapture(report, result)
                ? "double-capture" : "duplicate";
        return acks.acknowledge(provider, notification, outcome, result.order());
    }

    /** The statement failed on {@code payment_captures}' primary key: another order took the transaction id. */
    private static boolean isCaptureTaken(Throwable failure) {
        return DatabaseFailures.causes(failure).stream()
                .anyMatch(t -> t.getMessage() != null && t.getMessage().contains("payment_captures_pkey"));
    }
}
