package io.orderflow.payment.callbacks;

import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.Reply;
import io.orderflow.order.OrderService;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderNotFoundException;
import io.orderflow.payment.anomalies.Anomalies;
import io.orderflow.payment.anomalies.PaymentAnomaly;
import io.orderflow.payment.attempts.PaymentAttempts;
import io.orderflow.payment.attempts.PaymentCaptures;
import io.orderflow.payment.callbacks.ReportVerdict.Anomaly;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.PaymentProvider;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Carries out a {@link ReportVerdict}, and only that: an anomaly recorded and acknowledged, a stale attempt failed, a
 * second capture kept with its refund owed, a refund of it matched to it. What a write finds (whose a transaction
 * is, what a capture took) goes back to {@link ReportVerdict} to decide.
 */
@ApplicationScoped
public class ReportActions {

    /** The categories of the classes these lines were logged from, which log filters and alerts may name. */
    private static final Logger ANOMALOUS = Logger.getLogger("io.orderflow.payment.callbacks.AnomalousReports");
    private static final Logger FOREIGN = Logger.getLogger("io.orderflow.payment.callbacks.OtherPayments");

    private final OrderService orders;
    private final PaymentAttempts attempts;
    private final PaymentCaptures captures;
    private final Anomalies anomalies;
    private final Acknowledgements acks;
    private final MicrosecondClock time;

    public ReportActions(OrderService orders, PaymentAttempts attempts, PaymentCaptures captures, Anomalies anomalies,
            Acknowledgements acks, MicrosecondClock time) {
        this.orders = orders;
        this.attempts = attempts;
        this.captures = captures;
        this.anomalies = anomalies;
        this.acks = acks;
        this.time = time;
    }

    /** @param answered what the transition path already answered, or null when it answered nothing */
    Uni<Reply> act(PaymentProvider provider, Notification.Correlated notification, PaymentReport report,
            MatchedAttempt match, ReportVerdict verdict, Reply answered) {
        String name = provider.name();
        if (verdict instanceof ReportVerdict.Applied || verdict instanceof ReportVerdict.Duplicate) {
            return Uni.createFrom().item(answered);
        }
        if (verdict instanceof ReportVerdict.DoubleCapture capture) {
            Order order = capture.order();
            Reply reply = answered != null ? answered
                    : acks.acknowledge(provider, notification, capture.outcome(), order);
            return captures.recordDoubleCapture(capture.attemptId(), order.id(), name, report.transactionId(),
                            report.amount(), report.currency(), time.now())
                    .chain(() -> captures.owner(name, report.transactionId()))
                    .chain(owner -> act(provider, notification, report, match,
                            ReportVerdict.ofDoubleCapture(report, order, owner), reply));
        }
        if (verdict instanceof ReportVerdict.DoubleCaptureKept kept) {
            return anomalies.record(name, notification.id(), kept.orderId(), report.transactionId(),
                    PaymentAnomaly.Kind.DOUBLE_CAPTURE, kept.detail()).replaceWith(answered);
        }
        if (verdict instanceof ReportVerdict.StaleAttempt stale) {
            FOREIGN.infof("%s event %s: a failure of attempt %s, which order %s no longer stands on", name,
                    notification.id(), stale.attemptId(), stale.order().id());
            return attempts.markFailed(stale.attemptId(), time.now())
                    .map(done -> acks.acknowledge(provider, notification, "stale-attempt", stale.order()));
        }
        if (verdict instanceof ReportVerdict.OtherCapture other) {
            Order order = other.order();
            return captures.refund(name, report.transactionId(), order.id(), report.amount(), report.currency(),
                    time.now()).chain(refund -> act(provider, notification, report, match,
                            ReportVerdict.ofCaptureRefund(report, order, refund), null));
        }
        if (verdict instanceof ReportVerdict.OtherCaptureRefunded refunded) {
            return Uni.createFrom().item(acks.acknowledge(provider, notification, "other-capture", refunded.order()));
        }
        if (verdict instanceof ReportVerdict.TransactionTaken) {
            return captures.owner(name, report.transactionId()).chain(owner -> act(provider, notification, report,
                    match, new ReportVerdict.TxnReused(owner), null));
        }
        if (verdict instanceof ReportVerdict.TxnReused reused) {
            return orders.find(match.orderId(), null).onFailure(OrderNotFoundException.class).recoverWithNull()
                    .chain(order -> record(provider, notification, ReportVerdict.txnReused(report, match.orderId(),
                            reused.owner(), order == null ? null : order.status().name())));
        }
        return record(provider, notification, (Anomaly) verdict);
    }

    /** An anomaly: warned about, recorded once per event and kind, and answered 2xx. */
    Uni<Reply> record(PaymentProvider provider, Notification notification, Anomaly anomaly) {
        String name = provider.name();
        switch (anomaly.line()) {
            case OF_TYPE -> ANOMALOUS.warnf("%s event %s of type %s: %s", name, notification.id(),
                    notification.type(), anomaly.detail());
            case INVALID -> ANOMALOUS.warnf("%s event %s of type %s is invalid: %s", name, notification.id(),
                    notification.type(), anomaly.detail());
            case EVENT -> ANOMALOUS.warnf("%s event %s: %s", name, notification.id(), anomaly.detail());
        }
        return anomalies.record(name, notification.id(), anomaly.orderId(), anomaly.transactionId(), anomaly.kind(),
                anomaly.detail()).map(done -> acks.acknowledge(provider, notification, anomaly.outcome(),
                        anomaly.answeredOrderId(), anomaly.answeredStatus()));
    }
}
