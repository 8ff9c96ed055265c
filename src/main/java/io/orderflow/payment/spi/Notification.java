package io.orderflow.payment.spi;

import java.util.UUID;

/**
 * A provider's notification after its adapter verified and parsed it: what happened, in provider-neutral terms.
 * {@link #id()} is the provider's event id (the dedup key of the delivery, in the provider's own namespace) and
 * {@link #type()} its native type, kept for logs and anomalies. Amounts are integers in minor units; a notification
 * whose amount is anything else (2500.9, "2500", true) is {@link Invalid}, never coerced.
 */
public sealed interface Notification {

    String id();

    String type();

    /** A notification about one payment, named by {@link #subject()}. */
    sealed interface Correlated extends Notification {
        Subject subject();
    }

    /** Which payment a notification is about. */
    sealed interface Subject {
    }

    /** By the provider's reference of the attempt (Stripe PaymentIntent id, WeChat Pay {@code out_trade_no}). */
    record ByReference(String reference) implements Subject {
    }

    /** mockpay's own correlation: an order, and the attempt when the event names one (else the current one). */
    record ByOrder(UUID orderId, UUID attemptId) implements Subject {
    }

    /** Money was captured: {@code transactionId} is the capture (Stripe charge id, WeChat {@code transaction_id}). */
    record PaymentSucceeded(String id, String type, Subject subject, String transactionId, long amount,
            String currency) implements Correlated {
    }

    /** The payment failed; {@code amount} and {@code currency} are what was asked, when the provider says. */
    record PaymentFailed(String id, String type, Subject subject, String transactionId, Long amount, String currency,
            String reason) implements Correlated {
    }

    /**
     * A refund was made. {@code refundId} is the provider's (or null when it names none) and {@code captureId} the
     * transaction it gave back, so a refund is matched to its capture, not just to the order; {@code refund} is the
     * refund of ours it names by what the service sent with it (Stripe metadata, WeChat {@code out_refund_no}), null
     * when it names none (then it can only be a whole capture's).
     */
    record RefundSucceeded(String id, String type, Subject subject, String refundId, String captureId, Long amount,
            String currency, UUID refund) implements Correlated {

        public RefundSucceeded(String id, String type, Subject subject, String refundId, String captureId,
                Long amount, String currency) {
            this(id, type, subject, refundId, captureId, amount, currency, null);
        }
    }

    /**
     * A refund the provider did not make (Stripe {@code failed}/{@code canceled}, WeChat {@code ABNORMAL}/{@code
     * CLOSED}): {@code refund} is the refund of ours it names, {@code reason} the provider's why.
     */
    record RefundFailed(String id, String type, Subject subject, String refundId, UUID refund, String reason)
            implements Correlated {
    }

    /** A verified notification of a type orderflow does not act on; acknowledged so the provider stops. */
    record Ignored(String id, String type) implements Notification {
    }

    /** Verified, but unusable as sent (a bad amount, a missing field); acknowledged and recorded as an anomaly. */
    record Invalid(String id, String type, Subject subject, String reason) implements Correlated {
    }
}
