package io.orderflow.payment.callbacks;

import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.payment.anomalies.PaymentAnomaly.Kind;
import io.orderflow.payment.attempts.PaymentCaptures.CaptureRefund;
import io.orderflow.payment.spi.Notification;
import java.util.Optional;
import java.util.UUID;

/**
 * What a verified provider report means for its order, decided in plain Java from what is known about it: the match,
 * the transition path's answer ({@link TransitionOutcome}), and — for a second capture or a refund of one — what
 * the capture's own write found. {@link ReportActions} carries each verdict out; nothing else decides.
 */
sealed interface ReportVerdict {

    /** A verdict the transition path answers itself, in its statement (the answer is the event's stored record). */
    sealed interface Answered extends ReportVerdict {
        String outcome();
    }

    record Applied(Order order) implements Answered {
        public String outcome() {
            return "applied";
        }
    }

    record Duplicate(Order order) implements Answered {
        public String outcome() {
            return "duplicate";
        }
    }

    /** A capture of an order another capture paid: the customer was charged twice; kept, its refund owed. */
    record DoubleCapture(Order order, UUID attemptId) implements Answered {
        public String outcome() {
            return "double-capture";
        }
    }

    /** The double capture is kept: an anomaly for operators, the answer already made. */
    record DoubleCaptureKept(UUID orderId, String detail) implements ReportVerdict {
    }

    /** A failure of an attempt a later PAY replaced: only that attempt fails. */
    record StaleAttempt(Order order, UUID attemptId) implements ReportVerdict {
    }

    /** A refund of a capture that did not pay the order: judged against that capture, never the order's. */
    record OtherCapture(Order order) implements ReportVerdict {
    }

    record OtherCaptureRefunded(Order order) implements ReportVerdict {
    }

    /** Another order owns the transaction id; which one is read from the capture, then told. */
    record TransactionTaken() implements ReportVerdict {
    }

    /** The transaction id belongs to order {@code owner}: nothing of the report is kept. */
    record TxnReused(UUID owner) implements ReportVerdict {
    }

    /** Moves nothing: recorded where operators look, answered 2xx so the provider stops re-sending. */
    record Anomaly(Kind kind, String detail, String outcome, UUID orderId, String transactionId,
            UUID answeredOrderId, String answeredStatus, LogLine line) implements ReportVerdict {
    }

    /** How an anomaly's warning reads (log filters and alerts may match the text). */
    enum LogLine { OF_TYPE, INVALID, EVENT }

    /** Before the transition: an invalid event, or one that no attempt of ours matches ({@code match} null). */
    static Optional<Anomaly> ofMatch(Notification.Correlated report, MatchedAttempt match) {
        UUID orderId = match == null ? null : match.orderId();
        if (report instanceof Notification.Invalid invalid) {
            return Optional.of(new Anomaly(Kind.INVALID_EVENT, invalid.reason(), "invalid", orderId, null, orderId,
                    null, LogLine.INVALID));
        }
        if (match != null) {
            return Optional.empty();
        }
        UUID named = report.subject() instanceof Notification.ByOrder byOrder ? byOrder.orderId() : null;
        return Optional.of(new Anomaly(Kind.UNKNOWN_ATTEMPT, "No payment attempt matches " + report.subject(),
                "unknown-attempt", named, PaymentReport.transactionOf(report), null, null, LogLine.OF_TYPE));
    }

    /** Other content under an event id whose first content was decided: the first stands. */
    static Anomaly eventReused(Notification.Correlated report, UUID orderId) {
        String detail = "Event " + report.id() + " arrived again with other content (" + report.type() + ") about"
                + " order " + orderId + "; its first content stands";
        return new Anomaly(Kind.EVENT_REUSED, detail, "event-reused", orderId, PaymentReport.transactionOf(report),
                orderId, null, LogLine.EVENT);
    }

    /** What the transition path's answer to a matched report means. */
    static ReportVerdict of(PaymentReport report, MatchedAttempt match, TransitionOutcome outcome) {
        if (outcome instanceof TransitionOutcome.Moved moved) {
            Order order = moved.order();
            return moved.applied() ? new Applied(order)
                    : capturedOtherwise(report, order) ? doubleCapture(match, order) : new Duplicate(order);
        }
        if (outcome instanceof TransitionOutcome.NotConcerned notConcerned) {
            return report.event() == OrderEvent.PAYMENT_FAILED
                    ? new StaleAttempt(notConcerned.order(), match.attemptId())
                    : new OtherCapture(notConcerned.order());
        }
        if (outcome instanceof TransitionOutcome.AmountMismatch mismatch) {
            // a capture of a paid order is money taken twice whatever its amount; a refund of another capture is
            // judged against that capture
            Order order = mismatch.order();
            String own = order.payment() == null ? null : order.payment().providerTxnId();
            boolean another = own != null && !own.equals(report.transactionId());
            if (another && report.event() == OrderEvent.PAYMENT_SUCCEEDED) {
                return doubleCapture(match, order);
            }
            return another && report.event() == OrderEvent.REFUND_SUCCEEDED ? new OtherCapture(order)
                    : decided(report, match.orderId(), Kind.AMOUNT_MISMATCH, mismatch.message(), "amount-mismatch",
                            order.status().name());
        }
        if (outcome instanceof TransitionOutcome.Illegal illegal) {
            return decided(report, match.orderId(), Kind.STALE_EVENT, illegal.message(), "illegal",
                    illegal.current().name());
        }
        if (outcome instanceof TransitionOutcome.NoOrder) {
            return decided(report, match.orderId(), Kind.UNKNOWN_ORDER, "No order " + match.orderId(),
                    "unknown-order", null);
        }
        return new TransactionTaken();
    }

    /** After a double capture's write: kept, unless its transaction id is another order's. */
    static ReportVerdict ofDoubleCapture(PaymentReport report, Order order, UUID owner) {
        return owner != null && !owner.equals(order.id()) ? new TxnReused(owner)
                : new DoubleCaptureKept(order.id(), "Captured again as " + report.transactionId() + " ("
                        + report.amount() + " " + report.currency() + ") after " + order.payment().providerTxnId()
                        + "; a refund is owed");
    }

    /** After the refund of a capture that did not pay its order was matched to that capture. */
    static ReportVerdict ofCaptureRefund(PaymentReport report, Order order, CaptureRefund refund) {
        return switch (refund) {
            case REFUNDED -> new OtherCaptureRefunded(order);
            case AMOUNT_MISMATCH -> decided(report, order.id(), Kind.AMOUNT_MISMATCH, "A refund of "
                    + report.amount() + " " + report.currency() + " of capture " + report.transactionId()
                    + ", which took another amount", "amount-mismatch", order.status().name());
            case UNKNOWN -> decided(report, order.id(), Kind.UNKNOWN_CAPTURE, "A refund of "
                    + report.transactionId() + ", which no capture of the order has", "unknown-capture",
                    order.status().name());
        };
    }

    /** @param status the order's status when told, null when there is no order */
    static Anomaly txnReused(PaymentReport report, UUID orderId, UUID owner, String status) {
        return decided(report, orderId, Kind.TXN_REUSED, "Transaction " + report.transactionId()
                + " already belongs to order " + owner, "txn-reused", status);
    }

    private static Anomaly decided(PaymentReport report, UUID orderId, Kind kind, String detail, String outcome,
            String status) {
        return new Anomaly(kind, detail, outcome, orderId, report.transactionId(), orderId, status, LogLine.OF_TYPE);
    }

    /** A success with another transaction id for an order already paid: the customer was charged twice. */
    private static boolean capturedOtherwise(PaymentReport report, Order order) {
        Order.Payment payment = order.payment();
        return report.event() == OrderEvent.PAYMENT_SUCCEEDED && payment != null && payment.providerTxnId() != null
                && !payment.providerTxnId().equals(report.transactionId());
    }

    private static DoubleCapture doubleCapture(MatchedAttempt match, Order order) {
        return new DoubleCapture(order, match.attemptId() != null ? match.attemptId()
                : order.payment() == null ? null : order.payment().attemptId());
    }
}
