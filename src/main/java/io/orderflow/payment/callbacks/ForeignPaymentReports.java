package io.orderflow.payment.callbacks;

import io.orderflow.common.Reply;
import io.orderflow.common.Times;
import io.orderflow.order.TransitionResult;
import io.orderflow.order.domain.AmountMismatchException;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.payment.anomalies.Anomalies;
import io.orderflow.payment.anomalies.PaymentAnomaly;
import io.orderflow.payment.attempts.PaymentAttempts;
import io.orderflow.payment.attempts.PaymentCaptures;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.PaymentProvider;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Reports about a payment the order does not stand on, which therefore move no order: a failure of an attempt a
 * later PAY replaced ({@code stale-attempt}: only that attempt fails), a second capture of a paid order
 * ({@code double-capture}: kept, its refund owed), a refund of such a capture ({@code other-capture}: only that
 * capture is refunded), a capture whose transaction id another order owns ({@code txn-reused}).
 */
@ApplicationScoped
public class ForeignPaymentReports {

    /** The log category this class had under its former name, which log filters and alerts may name. */
    private static final Logger LOG = Logger.getLogger("io.orderflow.payment.callbacks.OtherPayments");

    private final PaymentAttempts attempts;
    private final PaymentCaptures captures;
    private final Anomalies anomalies;
    private final AnomalousReports anomalous;
    private final Acknowledgements acks;
    private final Times times;

    public ForeignPaymentReports(PaymentAttempts attempts, PaymentCaptures captures, Anomalies anomalies,
            AnomalousReports anomalous, Acknowledgements acks, Times times) {
        this.attempts = attempts;
        this.captures = captures;
        this.anomalies = anomalies;
        this.anomalous = anomalous;
        this.acks = acks;
        this.times = times;
    }

    /**
     * A report about a payment the order does not stand on: a failure of a superseded attempt only fails that
     * attempt; a refund of a capture that did not pay the order (a double capture's) only closes that capture.
     */
    Uni<Reply> notConcerned(PaymentProvider provider, Notification notification, PaymentReport report,
            MatchedAttempt match, Order order) {
        if (report.event() == OrderEvent.PAYMENT_FAILED) {
            LOG.infof("%s event %s: a failure of attempt %s, which order %s no longer stands on", provider.name(),
                    notification.id(), match.attemptId(), order.id());
            acks.count(provider, "stale-attempt");
            return attempts.markFailed(match.attemptId(), times.now())
                    .map(done -> acks.acknowledge(provider, notification, "stale-attempt", order));
        }
        return otherCapture(provider, notification, report, order);
    }

    /**
     * The report's amount is not the order's. A capture of an order another capture already paid is still money
     * taken twice (a double capture, with its own amount owed back); a refund of a capture other than the order's
     * own is judged against that capture; anything else is the order's amount mismatch.
     */
    Uni<Reply> amountMismatch(PaymentProvider provider, Notification notification, PaymentReport report,
            MatchedAttempt match, AmountMismatchException mismatch) {
        Order order = mismatch.order();
        String own = order.payment() == null ? null : order.payment().providerTxnId();
        boolean another = own != null && !own.equals(report.transactionId());
        if (another && report.event() == OrderEvent.PAYMENT_SUCCEEDED) {
            return doubleCapture(provider, notification, report, match, order,
                    acks.acknowledge(provider, notification, "double-capture", order));
        }
        if (another && report.event() == OrderEvent.REFUND_SUCCEEDED) {
            return otherCapture(provider, notification, report, order);
        }
        return anomalous.decided(provider, notification, report, match.orderId(), PaymentAnomaly.Kind.AMOUNT_MISMATCH,
                mismatch.getMessage(), "amount-mismatch", order.status().name());
    }

    /** A success with another transaction id for an order already paid: the customer was charged twice. */
    static boolean isDoubleCapture(PaymentReport report, TransitionResult result) {
        Order.Payment payment = result.order().payment();
        return !result.applied() && report.event() == OrderEvent.PAYMENT_SUCCEEDED && payment != null
                && payment.providerTxnId() != null && !payment.providerTxnId().equals(report.transactionId());
    }

    /**
     * Records a second capture of a paid order: kept with a refund owed, and an anomaly for operators — unless its
     * transaction id is another order's (refused, {@code txn-reused}).
     */
    Uni<Reply> doubleCapture(PaymentProvider provider, Notification notification, PaymentReport report,
            MatchedAttempt match, Order order, Reply reply) {
        UUID attempt = match.attemptId() != null ? match.attemptId()
                : order.payment() == null ? null : order.payment().attemptId();
        return captures.recordDoubleCapture(attempt, order.id(), provider.name(), report.transactionId(),
                        report.amount(), report.currency(), times.now())
                .chain(() -> captures.owner(provider.name(), report.transactionId()))
                .chain(owner -> owner != null && !owner.equals(order.id())
                        ? anomalous.txnReused(provider, notification, report, match.orderId(), owner)
                        : anomalies.record(provider.name(), notification.id(), order.id(), report.transactionId(),
                                PaymentAnomaly.Kind.DOUBLE_CAPTURE, "Captured again as " + report.transactionId()
                                        + " (" + report.amount() + " " + report.currency() + ") after "
                                        + order.payment().providerTxnId() + "; a refund is owed")
                                .replaceWith(reply));
    }

    /** The move failed on the capture's key: another order took the transaction id; which one is read, and told. */
    Uni<Reply> transactionTaken(PaymentProvider provider, Notification notification, PaymentReport report,
            MatchedAttempt match) {
        return captures.owner(provider.name(), report.transactionId())
                .chain(owner -> anomalous.txnReused(provider, notification, report, match.orderId(), owner));
    }

    /**
     * A refund of a capture that did not pay the order (a double capture's): matched to that capture first, then
     * its amount checked against what that capture took, never against the order's.
     */
    private Uni<Reply> otherCapture(PaymentProvider provider, Notification notification, PaymentReport report,
            Order order) {
        return captures.refund(provider.name(), report.transactionId(), order.id(), report.amount(),
                report.currency(), times.now()).chain(refund -> switch (refund) {
                    case REFUNDED -> Uni.createFrom().item(
                            acks.acknowledge(provider, notification, "other-capture", order));
                    case AMOUNT_MISMATCH -> anomalous.decided(provider, notification, report, order.id(),
                            PaymentAnomaly.Kind.AMOUNT_MISMATCH, "A refund of " + report.amount() + " "
                                    + report.currency() + " of capture " + report.transactionId()
                                    + ", which took another amount", "amount-mismatch", order.status().name());
                    case UNKNOWN -> anomalous.decided(provider, notification, report, order.id(),
                            PaymentAnomaly.Kind.UNKNOWN_CAPTURE, "A refund of " + report.transactionId()
                                    + ", which no capture of the order has", "unknown-capture",
                            order.status().name());
                });
    }
}
