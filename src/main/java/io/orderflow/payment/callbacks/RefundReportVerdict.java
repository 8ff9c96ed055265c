package io.orderflow.payment.callbacks;

import io.orderflow.payment.refunds.RefundView;
import io.orderflow.payment.spi.Notification;
import java.util.UUID;

/**
 * What a provider's report about a refund means, decided in plain Java from the report and the refund of ours it
 * names, and — for a success that names none — from the orders its capture stands behind. {@link RefundReports}
 * looks these up and carries each verdict out; nothing else decides.
 */
sealed interface RefundReportVerdict {

    /** Our refund {@code refund} ends in {@code status}; a success also records the provider's refund id. */
    record Settle(RefundView refund, RefundView.Status status, String providerRefund, String reason)
            implements RefundReportVerdict {

        boolean recordsProviderRefund() {
            return status == RefundView.Status.SUCCEEDED && providerRefund != null;
        }
    }

    /** A report of the whole capture refunded, naming no refund of ours: the payment path decides it. */
    record PaymentPath() implements RefundReportVerdict {
    }

    /** A failure of a refund that is not ours: nothing to settle, logged and acknowledged. */
    record Ignored() implements RefundReportVerdict {
    }

    /**
     * A success that names no refund of ours, of a known capture: decided by {@link #ofNotOurs} once the orders the
     * capture stands behind are known.
     */
    record NotOurs(Notification.RefundSucceeded report) implements RefundReportVerdict {
    }

    /** Money the service did not send: an anomaly of order {@code orderId}, acknowledged. */
    record Unaccounted(UUID orderId, String providerRefund, String detail) implements RefundReportVerdict {
    }

    /**
     * A report naming refund {@code refund} of ours that disagrees with it — another order, capture, amount or
     * currency: an anomaly of the refund's order {@code orderId}; the refund is not settled by it.
     */
    record Mismatch(UUID orderId, UUID refund, String providerRefund, String detail) implements RefundReportVerdict {
    }

    /**
     * From the report, the refund of ours it names ({@code ours} null when it names none of ours) and the order whose
     * payment the report is about ({@code reportedOrder}: the order a mockpay event names, the order of the attempt a
     * Stripe or WeChat Pay report names by its reference; null when the report names no payment of any order).
     */
    static RefundReportVerdict of(Notification.Correlated report, RefundView ours, UUID reportedOrder) {
        boolean succeeded = report instanceof Notification.RefundSucceeded;
        String providerRefund = providerRefund(report);
        if (ours == null) {
            if (!(report instanceof Notification.RefundSucceeded success)) {
                return new Ignored();
            }
            return success.captureId() == null ? new PaymentPath() : new NotOurs(success);
        }
        String disagreement = disagreement(report, ours, reportedOrder);
        if (disagreement != null) {
            return new Mismatch(ours.orderId(), ours.id(), providerRefund != null ? providerRefund : ours.id().toString(),
                    "The report names refund " + ours.id() + " of order " + ours.orderId() + " (" + ours.amount() + " "
                            + ours.currency() + " of " + ours.captureTxnId() + ") but " + disagreement
                            + "; the refund is not settled by it");
        }
        if (providerRefund != null && ours.providerRefundId() != null
                && !providerRefund.equals(ours.providerRefundId())) {
            return new Unaccounted(ours.orderId(), providerRefund, "Refund " + providerRefund + " names refund "
                    + ours.id() + ", which the provider made as " + ours.providerRefundId());
        }
        return new Settle(ours, succeeded ? RefundView.Status.SUCCEEDED : RefundView.Status.FAILED, providerRefund,
                report instanceof Notification.RefundFailed failure ? failure.reason() : null);
    }

    /**
     * A success naming no refund of ours, from the order whose refunds of ours give its capture back
     * ({@code refunding}) and the order the capture paid ({@code paid}), either null. Of a capture our refunds give
     * back it is money the service did not send, unless it is a report of the whole capture without a refund id
     * (Stripe's {@code charge.refunded}), which takes the payment path; of the capture that paid its order while no
     * refund of ours was ever issued for it (a refund made at the provider's dashboard), it is money the service did
     * not send too, whatever the report names — never a stale event. A refund of any other capture (a double
     * capture's, one unknown) takes the payment path. Each anomaly names the provider's refund id, or the capture's
     * for a report that names none.
     */
    static RefundReportVerdict ofNotOurs(Notification.RefundSucceeded report, UUID refunding, UUID paid) {
        String named = report.refundId() != null ? report.refundId() : report.captureId();
        if (refunding != null) {
            return report.refundId() == null ? new PaymentPath() : new Unaccounted(refunding, named, "Refund "
                    + named + " of " + report.captureId() + " (" + report.amount() + ") is no refund the service sent");
        }
        return paid == null ? new PaymentPath() : new Unaccounted(paid, named, "Refund " + named + " of "
                + report.captureId() + " (" + report.amount() + ") gives back a capture the service issued no refund of");
    }

    /** How the report disagrees with the refund of ours it names, or null when it agrees in everything it says. */
    static String disagreement(Notification.Correlated report, RefundView ours, UUID reportedOrder) {
        if (report.subject() != null && !ours.orderId().equals(reportedOrder)) {
            return reportedOrder == null ? "is about a payment of no order" : "is about order " + reportedOrder;
        }
        if (report instanceof Notification.RefundSucceeded success) {
            if (success.captureId() != null && !success.captureId().equals(ours.captureTxnId())) {
                return "gives back capture " + success.captureId();
            }
            if (success.amount() != null && success.amount() != ours.amount()) {
                return "says " + success.amount();
            }
            if (success.currency() != null && !success.currency().equalsIgnoreCase(ours.currency())) {
                return "says " + success.currency();
            }
        }
        return null;
    }

    /** The refund id the provider gave the refund a report is about, if it says. */
    static String providerRefund(Notification.Correlated report) {
        return report instanceof Notification.RefundSucceeded success ? success.refundId()
                : ((Notification.RefundFailed) report).refundId();
    }

    /** The refund of ours a report names by our id, if it does. */
    static UUID namedRefund(Notification.Correlated report) {
        return report instanceof Notification.RefundSucceeded success ? success.refund()
                : ((Notification.RefundFailed) report).refund();
    }
}
