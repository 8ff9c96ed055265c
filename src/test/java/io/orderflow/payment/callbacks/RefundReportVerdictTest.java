package io.orderflow.payment.callbacks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.payment.callbacks.RefundReportVerdict.Ignored;
import io.orderflow.payment.callbacks.RefundReportVerdict.NotOurs;
import io.orderflow.payment.callbacks.RefundReportVerdict.PaymentPath;
import io.orderflow.payment.callbacks.RefundReportVerdict.Settle;
import io.orderflow.payment.callbacks.RefundReportVerdict.Unaccounted;
import io.orderflow.payment.refunds.RefundView;
import io.orderflow.payment.spi.Notification;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What a provider's report about a refund means, over every report kind × whether it names a provider refund id and
 * a capture × the refund of ours it names (none, one the provider has not named yet, one it named the same, one it
 * named otherwise) × the orders its capture stands behind (refunding by our refunds, paid by it, neither, both).
 * Expectations are the table below: the first row that fits a combination says its verdict.
 */
class RefundReportVerdictTest {

    enum Kind { SUCCEEDED, FAILED }

    /** The refund of ours the report names, and the provider refund id we hold for it. */
    enum Ours { NONE, UNNAMED, SAME_ID, OTHER_ID, ANY }

    /** The orders the report's capture stands behind: refunded by refunds of ours, and paid. */
    enum Owners { NEITHER, REFUNDING, PAID, BOTH, ANY }

    private static final Boolean ANY = null;

    private record Row(Kind kind, Boolean refundId, Boolean captureId, Ours ours, Owners owners, String verdict) {
        boolean fits(Kind k, boolean r, boolean c, Ours o, Owners w) {
            return (kind == null || kind == k) && (refundId == null || refundId == r)
                    && (captureId == null || captureId == c) && (ours == Ours.ANY || ours == o)
                    && (owners == Owners.ANY || owners == w);
        }
    }

    private static final List<Row> TABLE = List.of(
            // kind          refund id  capture  ours            capture's owners   verdict
            new Row(Kind.FAILED,    ANY,   ANY,   Ours.NONE,     Owners.ANY,       "ignored"),
            new Row(Kind.SUCCEEDED, ANY,   false, Ours.NONE,     Owners.ANY,       "payment path"),
            new Row(Kind.SUCCEEDED, false, true,  Ours.NONE,     Owners.REFUNDING, "payment path"),
            new Row(Kind.SUCCEEDED, false, true,  Ours.NONE,     Owners.BOTH,      "payment path"),
            new Row(Kind.SUCCEEDED, true,  true,  Ours.NONE,     Owners.REFUNDING, "unaccounted refunding: no refund sent"),
            new Row(Kind.SUCCEEDED, true,  true,  Ours.NONE,     Owners.BOTH,      "unaccounted refunding: no refund sent"),
            new Row(Kind.SUCCEEDED, ANY,   true,  Ours.NONE,     Owners.PAID,      "unaccounted paid: no refund issued"),
            new Row(Kind.SUCCEEDED, ANY,   true,  Ours.NONE,     Owners.NEITHER,   "payment path"),
            new Row(null,           true,  ANY,   Ours.OTHER_ID, Owners.ANY,       "unaccounted ours: made otherwise"),
            new Row(Kind.SUCCEEDED, true,  ANY,   Ours.ANY,      Owners.ANY,       "settle SUCCEEDED, recorded"),
            new Row(Kind.SUCCEEDED, false, ANY,   Ours.ANY,      Owners.ANY,       "settle SUCCEEDED"),
            new Row(Kind.FAILED,    ANY,   ANY,   Ours.ANY,      Owners.ANY,       "settle FAILED"));

    private static final UUID REFUNDING_ORDER = UUID.fromString("00000000-0000-0000-0000-00000000000a");
    private static final UUID PAID_ORDER = UUID.fromString("00000000-0000-0000-0000-00000000000b");
    private static final UUID OUR_ORDER = UUID.fromString("00000000-0000-0000-0000-00000000000c");
    private static final UUID OUR_REFUND = UUID.fromString("00000000-0000-0000-0000-00000000000d");

    @Test
    void shouldDecideEveryCombinationAsTheTableSays() {
        List<String> wrong = new ArrayList<>();
        int cases = 0;
        for (Kind kind : Kind.values()) {
            for (boolean refundId : new boolean[] {true, false}) {
                for (boolean captureId : new boolean[] {true, false}) {
                    for (Ours ours : List.of(Ours.NONE, Ours.UNNAMED, Ours.SAME_ID, Ours.OTHER_ID)) {
                        for (Owners owners : List.of(Owners.NEITHER, Owners.REFUNDING, Owners.PAID, Owners.BOTH)) {
                            if (kind == Kind.FAILED && !captureId) {
                                continue; // a failure names no capture: the same cases as with one
                            }
                            cases++;
                            String expected = TABLE.stream()
                                    .filter(row -> row.fits(kind, refundId, captureId, ours, owners)).findFirst()
                                    .map(Row::verdict).orElseThrow();
                            String actual = describe(kind, refundId, captureId, ours, owners);
                            if (!expected.equals(actual)) {
                                wrong.add(kind + " refundId=" + refundId + " captureId=" + captureId + " " + ours
                                        + " " + owners + ": expected " + expected + ", was " + actual);
                            }
                        }
                    }
                }
            }
        }
        assertEquals(96, cases);
        assertEquals(List.of(), wrong);
    }

    @Test
    void shouldNameTheAnomalysOrderRefundAndWhy() {
        Notification.RefundSucceeded dashboard = new Notification.RefundSucceeded("evt_1", "charge.refund.updated",
                null, "re_9", "ch_1", 1999L, "EUR");
        Unaccounted paid = (Unaccounted) RefundReportVerdict.ofNotOurs(dashboard, null, PAID_ORDER);
        assertEquals(new Unaccounted(PAID_ORDER, "re_9",
                "Refund re_9 of ch_1 (1999) gives back a capture the service issued no refund of"), paid);

        Notification.RefundSucceeded whole = new Notification.RefundSucceeded("evt_2", "charge.refunded", null, null,
                "ch_1", 1999L, "EUR");
        Unaccounted byCapture = (Unaccounted) RefundReportVerdict.ofNotOurs(whole, null, PAID_ORDER);
        assertEquals("ch_1", byCapture.providerRefund(), "a report naming no refund is named by its capture");

        Unaccounted sent = (Unaccounted) RefundReportVerdict.ofNotOurs(dashboard, REFUNDING_ORDER, null);
        assertEquals(new Unaccounted(REFUNDING_ORDER, "re_9", "Refund re_9 of ch_1 (1999) is no refund the service sent"),
                sent);

        Unaccounted madeOtherwise = (Unaccounted) RefundReportVerdict.of(dashboard, ours("re_1"), OUR_ORDER);
        assertEquals(new Unaccounted(OUR_ORDER, "re_9", "Refund re_9 names refund " + OUR_REFUND
                + ", which the provider made as re_1"), madeOtherwise);
    }

    @Test
    void shouldSettleAFailureWithItsReason() {
        Notification.RefundFailed failed = new Notification.RefundFailed("evt_3", "refund.failed", null, "re_1",
                OUR_REFUND, "expired_or_canceled_card");
        Settle settle = (Settle) RefundReportVerdict.of(failed, ours("re_1"), OUR_ORDER);
        assertEquals(RefundView.Status.FAILED, settle.status());
        assertEquals("expired_or_canceled_card", settle.reason());
        assertTrue(!settle.recordsProviderRefund(), "only a success records the provider's refund");
    }

    /**
     * A report naming a refund of ours that disagrees with it in any of the order its payment belongs to, the capture,
     * the amount or the currency is a mismatch, never a settlement (issue 43, item 5): every combination of each
     * agreeing or not, for a success and a failure (which says no capture, amount or currency), by subject.
     */
    @Test
    void shouldTakeAReportThatDisagreesWithTheRefundItNamesForAMismatchNeverASettlement() {
        UUID otherOrder = UUID.fromString("00000000-0000-0000-0000-0000000000ee");
        Notification.Subject bySomething = new Notification.ByReference("pi_1");
        List<String> wrong = new ArrayList<>();
        int cases = 0;
        for (Kind kind : Kind.values()) {
            for (UUID reportedOrder : new UUID[] {OUR_ORDER, otherOrder, null}) {
                for (String capture : new String[] {"ch_1", "ch_2", null}) {
                    for (Long amount : new Long[] {1999L, 2000L, null}) {
                        for (String currency : new String[] {"EUR", "eur", "USD", null}) {
                            Notification.Correlated report = kind == Kind.SUCCEEDED
                                    ? new Notification.RefundSucceeded("evt", "refund.updated", bySomething, "re_1",
                                            capture, amount, currency, OUR_REFUND)
                                    : new Notification.RefundFailed("evt", "refund.failed", bySomething, "re_1",
                                            OUR_REFUND, "declined");
                            boolean agrees = OUR_ORDER.equals(reportedOrder) && (kind == Kind.FAILED
                                    || (!"ch_2".equals(capture) && !Long.valueOf(2000L).equals(amount)
                                            && !"USD".equals(currency)));
                            RefundReportVerdict verdict = RefundReportVerdict.of(report, ours("re_1"), reportedOrder);
                            cases++;
                            boolean settled = verdict instanceof Settle;
                            boolean mismatch = verdict instanceof RefundReportVerdict.Mismatch m
                                    && m.orderId().equals(OUR_ORDER) && m.refund().equals(OUR_REFUND);
                            if (agrees ? !settled : !mismatch) {
                                wrong.add(kind + " order " + reportedOrder + " " + capture + " " + amount + " "
                                        + currency + ": " + verdict);
                            }
                        }
                    }
                }
            }
        }
        assertEquals(216, cases);
        assertEquals(List.of(), wrong);
        RefundReportVerdict.Mismatch named = (RefundReportVerdict.Mismatch) RefundReportVerdict.of(
                new Notification.RefundSucceeded("evt", "REFUND_SUCCEEDED", new Notification.ByOrder(otherOrder, null),
                        null, "ch_1", 1999L, "EUR", OUR_REFUND), ours(null), otherOrder);
        assertEquals(OUR_REFUND.toString(), named.providerRefund(), "a report naming no provider refund: ours names it");
        assertTrue(named.detail().contains("is about order " + otherOrder), named.detail());
    }

    private static String describe(Kind kind, boolean refundId, boolean captureId, Ours ours, Owners owners) {
        String providerRefund = refundId ? "re_report" : null;
        Notification.Correlated report = kind == Kind.SUCCEEDED
                ? new Notification.RefundSucceeded("evt", "refund.updated", null, providerRefund,
                        captureId ? "ch_1" : null, 1999L, "EUR", ours == Ours.NONE ? null : OUR_REFUND)
                : new Notification.RefundFailed("evt", "refund.failed", null, providerRefund,
                        ours == Ours.NONE ? null : OUR_REFUND, "declined");
        RefundView named = switch (ours) {
            case NONE -> null;
            case UNNAMED -> ours(null);
            case SAME_ID -> ours(refundId ? "re_report" : "re_held");
            case OTHER_ID -> ours("re_held");
            case ANY -> throw new IllegalArgumentException();
        };
        RefundReportVerdict verdict = RefundReportVerdict.of(report, named, OUR_ORDER);
        if (verdict instanceof NotOurs notOurs) {
            boolean refunding = owners == Owners.REFUNDING || owners == Owners.BOTH;
            boolean paid = owners == Owners.PAID || owners == Owners.BOTH;
            // the order refunding the capture is asked first; the order it paid only when there is none
            verdict = RefundReportVerdict.ofNotOurs(notOurs.report(), refunding ? REFUNDING_ORDER : null,
                    !refunding && paid ? PAID_ORDER : null);
        }
        if (verdict instanceof Ignored) {
            return "ignored";
        }
        if (verdict instanceof PaymentPath) {
            return "payment path";
        }
        if (verdict instanceof Unaccounted anomaly) {
            String whose = REFUNDING_ORDER.equals(anomaly.orderId()) ? "refunding"
                    : PAID_ORDER.equals(anomaly.orderId()) ? "paid" : OUR_ORDER.equals(anomaly.orderId()) ? "ours" : "?";
            String why = anomaly.detail().endsWith("is no refund the service sent") ? "no refund sent"
                    : anomaly.detail().endsWith("issued no refund of") ? "no refund issued"
                    : anomaly.detail().contains("which the provider made as") ? "made otherwise" : anomaly.detail();
            return "unaccounted " + whose + ": " + why;
        }
        Settle settle = (Settle) verdict;
        assertEquals(OUR_REFUND, settle.refund().id());
        return "settle " + settle.status() + (settle.recordsProviderRefund() ? ", recorded" : "");
    }

    private static RefundView ours(String providerRefundId) {
        return new RefundView(OUR_REFUND, OUR_ORDER, 1999, "EUR", "customer", RefundView.Status.PENDING, "ops",
                "stripe", "ch_1", providerRefundId, null, Instant.EPOCH, Instant.EPOCH);
    }
}
