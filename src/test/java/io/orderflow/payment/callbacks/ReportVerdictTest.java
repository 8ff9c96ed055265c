package io.orderflow.payment.callbacks;

import static io.orderflow.order.domain.OrderEvent.PAYMENT_FAILED;
import static io.orderflow.order.domain.OrderEvent.PAYMENT_SUCCEEDED;
import static io.orderflow.order.domain.OrderEvent.REFUND_SUCCEEDED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.payment.anomalies.PaymentAnomaly.Kind;
import io.orderflow.payment.attempts.PaymentCaptures.CaptureRefund;
import io.orderflow.payment.callbacks.ReportVerdict.Anomaly;
import io.orderflow.payment.spi.Notification;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What a matched report means for its order, over every report kind × transition answer × order status × the capture
 * the order stands on × how the attempt was named. The amount and currency are judged by the transition path (its
 * AMOUNT_MISMATCH answer), so they enter as that answer. Expectations are the table below: the first row that fits
 * a combination says its verdict.
 */
class ReportVerdictTest {

    /** What the transition path answered, one per {@link TransitionOutcome}, and "moved" twice: applied or not. */
    enum Answer { MOVED, ALREADY_TAKEN, NOT_CONCERNED, AMOUNT_MISMATCH, ILLEGAL, NO_ORDER, CAPTURE_TAKEN }

    /** The capture the order stands on, against the one the report names. */
    enum Capture { NONE, UNSETTLED, SAME, OTHER, ANY }

    /** How the report named its attempt: by id (or the provider's reference), or only by order (mockpay). */
    enum AttemptNamed { BY_ID, ORDER_ONLY }

    private record Row(OrderEvent event, Answer answer, Capture capture, String verdict) {
        boolean fits(OrderEvent e, Answer a, Capture c) {
            return (event == null || event == e) && answer == a && (capture == Capture.ANY || capture == c);
        }
    }

    private static final OrderEvent ANY_EVENT = null;

    private static final List<Row> TABLE = List.of(
            // report event     transition answer        order's capture   verdict
            new Row(ANY_EVENT,         Answer.MOVED,            Capture.ANY,   "applied"),
            new Row(PAYMENT_SUCCEEDED, Answer.ALREADY_TAKEN,    Capture.OTHER, "double-capture"),
            new Row(ANY_EVENT,         Answer.ALREADY_TAKEN,    Capture.ANY,   "duplicate"),
            new Row(PAYMENT_FAILED,    Answer.NOT_CONCERNED,    Capture.ANY,   "stale-attempt"),
            new Row(ANY_EVENT,         Answer.NOT_CONCERNED,    Capture.ANY,   "other-capture"),
            new Row(PAYMENT_SUCCEEDED, Answer.AMOUNT_MISMATCH,  Capture.OTHER, "double-capture"),
            new Row(REFUND_SUCCEEDED,  Answer.AMOUNT_MISMATCH,  Capture.OTHER, "other-capture"),
            new Row(ANY_EVENT,         Answer.AMOUNT_MISMATCH,  Capture.ANY,   "anomaly amount-mismatch"),
            new Row(ANY_EVENT,         Answer.ILLEGAL,          Capture.ANY,   "anomaly stale-event illegal"),
            new Row(ANY_EVENT,         Answer.NO_ORDER,         Capture.ANY,   "anomaly unknown-order"),
            new Row(ANY_EVENT,         Answer.CAPTURE_TAKEN,    Capture.ANY,   "txn-taken"));

    private static final UUID ORDER = UUID.fromString("00000000-0000-0000-0000-00000000000a");
    private static final UUID ATTEMPT = UUID.fromString("00000000-0000-0000-0000-0000000000a1");
    private static final UUID ORDERS_ATTEMPT = UUID.fromString("00000000-0000-0000-0000-0000000000a0");
    private static final String REPORTED_TXN = "txn-reported";

    @Test
    void shouldDecideEveryCombinationAsTheTableSays() {
        List<String> wrong = new ArrayList<>();
        int combinations = 0;
        for (OrderEvent event : List.of(PAYMENT_SUCCEEDED, PAYMENT_FAILED, REFUND_SUCCEEDED)) {
            for (Answer answer : Answer.values()) {
                for (OrderStatus status : OrderStatus.values()) {
                    for (Capture capture : List.of(Capture.NONE, Capture.UNSETTLED, Capture.SAME, Capture.OTHER)) {
                        for (AttemptNamed named : AttemptNamed.values()) {
                            combinations++;
                            Order order = order(status, capture);
                            MatchedAttempt match = new MatchedAttempt(ORDER, named == AttemptNamed.BY_ID
                                    ? ATTEMPT : null, null);
                            ReportVerdict verdict = ReportVerdict.of(report(event), match, outcome(answer, order));
                            String expected = expected(event, answer, capture);
                            String actual = describe(verdict, order, named, answer);
                            if (!expected.equals(actual)) {
                                wrong.add(event + " × " + answer + " × " + status + " order × capture " + capture
                                        + " × attempt " + named + ": expected " + expected + ", was " + actual);
                            }
                        }
                    }
                }
            }
        }
        assertEquals(3 * 7 * 8 * 4 * 2, combinations);
        assertTrue(wrong.isEmpty(), wrong.size() + " combinations decided otherwise:\n" + String.join("\n", wrong));
    }

    @Test
    void shouldKeepADoubleCaptureUnlessAnotherOrderOwnsItsTransaction() {
        Order paid = order(OrderStatus.PAID, Capture.OTHER);
        PaymentReport report = report(PAYMENT_SUCCEEDED);
        for (UUID owner : new UUID[] {null, ORDER}) {
            ReportVerdict.DoubleCaptureKept kept = (ReportVerdict.DoubleCaptureKept)
                    ReportVerdict.ofDoubleCapture(report, paid, owner);
            assertEquals(new ReportVerdict.DoubleCaptureKept(ORDER, "Captured again as txn-reported (1000 EUR)"
                    + " after txn-own; a refund is owed"), kept, "owner " + owner);
        }
        UUID another = UUID.randomUUID();
        assertEquals(new ReportVerdict.TxnReused(another), ReportVerdict.ofDoubleCapture(report, paid, another));
        assertEquals(new Anomaly(Kind.TXN_REUSED, "Transaction txn-reported already belongs to order " + another,
                "txn-reused", ORDER, REPORTED_TXN, ORDER, "PAID", ReportVerdict.LogLine.OF_TYPE),
                ReportVerdict.txnReused(report, ORDER, another, "PAID"));
    }

    @Test
    void shouldJudgeARefundOfAnotherCaptureByWhatThatCaptureTook() {
        for (OrderStatus status : OrderStatus.values()) {
            Order order = order(status, Capture.OTHER);
            PaymentReport refund = report(REFUND_SUCCEEDED);
            assertEquals(new ReportVerdict.OtherCaptureRefunded(order),
                    ReportVerdict.ofCaptureRefund(refund, order, CaptureRefund.REFUNDED));
            assertEquals(new Anomaly(Kind.AMOUNT_MISMATCH, "A refund of 1000 EUR of capture txn-reported, which took"
                    + " another amount", "amount-mismatch", ORDER, REPORTED_TXN, ORDER, status.name(),
                    ReportVerdict.LogLine.OF_TYPE), ReportVerdict.ofCaptureRefund(refund, order,
                    CaptureRefund.AMOUNT_MISMATCH));
            assertEquals(new Anomaly(Kind.UNKNOWN_CAPTURE, "A refund of txn-reported, which no capture of the order"
                    + " has", "unknown-capture", ORDER, REPORTED_TXN, ORDER, status.name(),
                    ReportVerdict.LogLine.OF_TYPE), ReportVerdict.ofCaptureRefund(refund, order,
                    CaptureRefund.UNKNOWN));
        }
    }

    @Test
    void shouldRecordAnInvalidOrUnmatchedEventBeforeAnyTransition() {
        Notification.Subject byOrder = new Notification.ByOrder(ORDER, ATTEMPT);
        Notification.Subject byReference = new Notification.ByReference("pi_1");
        MatchedAttempt match = new MatchedAttempt(ORDER, ATTEMPT, null);
        Notification.Invalid invalid = new Notification.Invalid("evt-1", "payment.succeeded", byReference, "bad");
        assertEquals(Optional.of(new Anomaly(Kind.INVALID_EVENT, "bad", "invalid", ORDER, null, ORDER, null,
                ReportVerdict.LogLine.INVALID)), ReportVerdict.ofMatch(invalid, match));
        assertEquals(Optional.of(new Anomaly(Kind.INVALID_EVENT, "bad", "invalid", null, null, null, null,
                ReportVerdict.LogLine.INVALID)), ReportVerdict.ofMatch(invalid, null));
        Notification.PaymentFailed failed = new Notification.PaymentFailed("evt-2", "payment.failed", byOrder,
                "txn-9", null, null, "declined");
        assertEquals(Optional.empty(), ReportVerdict.ofMatch(failed, match));
        assertEquals(Optional.of(new Anomaly(Kind.UNKNOWN_ATTEMPT, "No payment attempt matches " + byOrder,
                "unknown-attempt", ORDER, "txn-9", null, null, ReportVerdict.LogLine.OF_TYPE)),
                ReportVerdict.ofMatch(failed, null));
        Notification.PaymentFailed byRef = new Notification.PaymentFailed("evt-3", "payment.failed", byReference,
                null, null, null, "declined");
        assertEquals(Optional.of(new Anomaly(Kind.UNKNOWN_ATTEMPT, "No payment attempt matches " + byReference,
                "unknown-attempt", null, null, null, null, ReportVerdict.LogLine.OF_TYPE)),
                ReportVerdict.ofMatch(byRef, null));
        assertEquals(new Anomaly(Kind.EVENT_REUSED, "Event evt-2 arrived again with other content (payment.failed)"
                + " about order " + ORDER + "; its first content stands", "event-reused", ORDER, "txn-9", ORDER, null,
                ReportVerdict.LogLine.EVENT), ReportVerdict.eventReused(failed, ORDER));
    }

    private static String expected(OrderEvent event, Answer answer, Capture capture) {
        return TABLE.stream().filter(row -> row.fits(event, answer, capture)).findFirst().orElseThrow().verdict();
    }

    /** The verdict as the table names it, once what it carries is checked (which order, attempt and status). */
    private static String describe(ReportVerdict verdict, Order order, AttemptNamed named, Answer answer) {
        if (verdict instanceof ReportVerdict.Applied a) {
            return a.order() == order ? "applied" : "applied to another order";
        }
        if (verdict instanceof ReportVerdict.Duplicate d) {
            return d.order() == order ? "duplicate" : "duplicate of another order";
        }
        if (verdict instanceof ReportVerdict.DoubleCapture d) {
            UUID attempt = named == AttemptNamed.BY_ID ? ATTEMPT : ORDERS_ATTEMPT;
            return d.order() == order && attempt.equals(d.attemptId()) ? "double-capture"
                    : "double-capture of attempt " + d.attemptId();
        }
        if (verdict instanceof ReportVerdict.StaleAttempt s) {
            UUID attempt = named == AttemptNamed.BY_ID ? ATTEMPT : null;
            return s.order() == order && Objects.equals(attempt, s.attemptId()) ? "stale-attempt"
                    : "stale-attempt of attempt " + s.attemptId();
        }
        if (verdict instanceof ReportVerdict.OtherCapture o) {
            return o.order() == order ? "other-capture" : "other-capture of another order";
        }
        if (verdict instanceof ReportVerdict.TransactionTaken) {
            return "txn-taken";
        }
        Anomaly anomaly = (Anomaly) verdict;
        String status = answer == Answer.NO_ORDER ? null : order.status().name();
        String detail = answer == Answer.NO_ORDER ? "No order " + ORDER
                : answer == Answer.ILLEGAL ? "illegal" : "mismatch";
        boolean carried = ORDER.equals(anomaly.orderId()) && ORDER.equals(anomaly.answeredOrderId())
                && REPORTED_TXN.equals(anomaly.transactionId()) && Objects.equals(status, anomaly.answeredStatus())
                && detail.equals(anomaly.detail()) && anomaly.line() == ReportVerdict.LogLine.OF_TYPE;
        String name = "anomaly " + anomaly.kind().label
                + (anomaly.kind().label.equals(anomaly.outcome()) ? "" : " " + anomaly.outcome());
        return carried ? name : name + " carrying " + anomaly;
    }

    private static PaymentReport report(OrderEvent event) {
        return new PaymentReport(event, REPORTED_TXN, 1000, "EUR");
    }

    private static Order order(OrderStatus status, Capture capture) {
        Instant at = Instant.parse("2026-01-01T00:00:00Z");
        String txn = switch (capture) {
            case SAME -> REPORTED_TXN;
            case OTHER -> "txn-own";
            default -> null;
        };
        Order.Payment payment = capture == Capture.NONE ? null
                : new Order.Payment("mockpay", txn, at, null, ORDERS_ATTEMPT);
        return new Order(ORDER, "c-1", status, 3, "EUR", 1000, List.of(), payment, null, null, at, at);
    }

    private static TransitionOutcome outcome(Answer answer, Order order) {
        return switch (answer) {
            case MOVED -> new TransitionOutcome.Moved(true, order);
            case ALREADY_TAKEN -> new TransitionOutcome.Moved(false, order);
            case NOT_CONCERNED -> new TransitionOutcome.NotConcerned(order);
            case AMOUNT_MISMATCH -> new TransitionOutcome.AmountMismatch(order, "mismatch");
            case ILLEGAL -> new TransitionOutcome.Illegal(order.status(), "illegal");
            case NO_ORDER -> new TransitionOutcome.NoOrder();
            case CAPTURE_TAKEN -> new TransitionOutcome.CaptureTaken();
        };
    }
}
