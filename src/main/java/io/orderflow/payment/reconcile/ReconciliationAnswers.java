package io.orderflow.payment.reconcile;

import io.orderflow.payment.attempts.PaymentAttempt;
import io.orderflow.payment.commands.ProviderCommands;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.PaymentState;
import io.orderflow.payment.spi.ProviderOutcome;
import io.orderflow.payment.spi.RefundState;

/**
 * What a provider's answer to the janitor's question means, as the notification the provider would have sent: so
 * that it is applied through the callbacks' own path and dedup. Null where it settles nothing.
 */
public final class ReconciliationAnswers {

    /** The query itself was refused: nothing is known about the payment. */
    public static final String QUERY_DECLINED = "query-declined";

    private ReconciliationAnswers() {
    }

    /** What the provider's answer means as a notification; null when it settles nothing (still pending, unknown). */
    public static Notification payment(PaymentAttempt attempt, ProviderOutcome<PaymentState> outcome) {
        Notification.Subject subject = new Notification.ByReference(attempt.reference());
        PaymentState state = outcome.value();
        String id = "reconcile:" + attempt.reference() + ":" + outcome.status().name().toLowerCase();
        if (outcome.is(ProviderOutcome.Status.PROCESSED) && state != null && state.transactionId() != null
                && state.amount() != null && state.currency() != null) {
            return new Notification.PaymentSucceeded(id, "reconciliation", subject, state.transactionId(),
                    state.amount(), state.currency());
        }
        if (isReportedFailure(outcome)) {
            return new Notification.PaymentFailed(id, "reconciliation", subject, state.transactionId(), null, null,
                    state.reason());
        }
        return null;
    }

    /**
     * A refund the provider reports made (PROCESSED) or not made (an ERROR carrying the refund's state: Stripe
     * failed or canceled, WeChat ABNORMAL or CLOSED), as its notification would have said it, naming the command's
     * refund (the same id); null while it is under way (pending, requires_action, PROCESSING) or the question got no
     * answer or was refused (an ERROR without a state), which {@link #unsettledRefund} names.
     */
    static Notification refund(ProviderCommands.Refund refund, ProviderOutcome<RefundState> outcome) {
        if (refund.paymentReference() == null) {
            return null;
        }
        RefundState state = outcome.value();
        String refundId = state != null && state.refundId() != null ? state.refundId() : refund.refundId();
        Notification.Subject subject = new Notification.ByReference(refund.paymentReference());
        if (outcome.is(ProviderOutcome.Status.PROCESSED)) {
            return new Notification.RefundSucceeded("reconcile:refund:" + refund.id(), "reconciliation", subject,
                    refundId, refund.captureTxnId(), refund.amount(), refund.currency(), refund.id());
        }
        if (outcome.is(ProviderOutcome.Status.ERROR) && state != null) {
            return new Notification.RefundFailed("reconcile:refund:" + refund.id() + ":failed", "reconciliation",
                    subject, refundId, refund.id(), state.reason() != null ? state.reason() : outcome.code());
        }
        return null;
    }

    /** Why a refund query settled nothing: still under way, not found, refused, or no answer. */
    static String unsettledRefund(ProviderOutcome<RefundState> outcome) {
        if (outcome.isNotFound()) {
            return "not-found";
        }
        return switch (outcome.status()) {
            case ERROR -> QUERY_DECLINED;
            case PROCESSED, PENDING -> "pending";
            case CANCELED, UNDEFINED -> "no-answer";
        };
    }

    /**
     * A payment the provider reports failed for good (Stripe: canceled, or a last payment error; WeChat Pay: CLOSED,
     * REVOKED, PAYERROR): an ERROR that carries the payment's state. An ERROR without one is the provider refusing
     * the query itself (Stripe 401, 404 resource_missing; WeChat SIGN_ERROR), which says nothing about the payment.
     */
    static boolean isReportedFailure(ProviderOutcome<PaymentState> outcome) {
        return outcome.is(ProviderOutcome.Status.ERROR) && outcome.value() != null && outcome.value().reason() != null;
    }

    /**
     * What the janitor heard, as the stuck-payments list shows it: {@code answered <status>} when the answer settles
     * the payment, else why not ({@link #unsettled}); with the provider's code when it gave one.
     */
    static String heard(ProviderOutcome<PaymentState> outcome, boolean settles) {
        String what = settles ? "answered " + outcome.status().name().toLowerCase() : unsettled(outcome);
        return outcome.code() == null ? what : what + " (" + outcome.code() + ")";
    }

    /** Why a query settled nothing: still pending, the query refused, or no answer (timeout, circuit open). */
    static String unsettled(ProviderOutcome<PaymentState> outcome) {
        return switch (outcome.status()) {
            case ERROR -> QUERY_DECLINED;
            case PROCESSED, PENDING -> "pending";
            case CANCELED, UNDEFINED -> "no-answer";
        };
    }
}
