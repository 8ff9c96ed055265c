package io.orderflow.payment.callbacks;

import io.orderflow.order.domain.OrderEvent;
import io.orderflow.payment.spi.Notification;

/**
 * What a notification asks of its order: the event, the capture it names, and what the provider says was paid
 * (for a failure or refund that names no amount, the attempt's).
 */
record PaymentReport(OrderEvent event, String transactionId, long amount, String currency) {

    static PaymentReport of(Notification.Correlated notification, MatchedAttempt match) {
        if (notification instanceof Notification.PaymentSucceeded s) {
            return new PaymentReport(OrderEvent.PAYMENT_SUCCEEDED, s.transactionId(), s.amount(), s.currency());
        }
        if (notification instanceof Notification.PaymentFailed f) {
            return new PaymentReport(OrderEvent.PAYMENT_FAILED, f.transactionId(), amount(f.amount(), match),
                    currency(f.currency(), match));
        }
        if (notification instanceof Notification.RefundSucceeded r) {
            return new PaymentReport(OrderEvent.REFUND_SUCCEEDED, r.captureId(), amount(r.amount(), match),
                    currency(r.currency(), match));
        }
        throw new IllegalArgumentException("not a payment report: " + notification.type());
    }

    /** The capture a notification names, before it is matched (an anomaly records it). */
    static String transactionOf(Notification.Correlated notification) {
        return notification instanceof Notification.PaymentSucceeded s ? s.transactionId()
                : notification instanceof Notification.PaymentFailed f ? f.transactionId()
                : notification instanceof Notification.RefundSucceeded r ? r.captureId() : null;
    }

    private static long amount(Long reported, MatchedAttempt match) {
        return reported != null ? reported : match.attempt() != null ? match.attempt().amount() : -1;
    }

    private static String currency(String reported, MatchedAttempt match) {
        return reported != null ? reported : match.attempt() != null ? match.attempt().currency() : null;
    }
}
