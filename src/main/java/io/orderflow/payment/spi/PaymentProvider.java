package io.orderflow.payment.spi;

import io.orderflow.common.Reply;
import io.orderflow.common.problem.Problem;
import io.smallrye.mutiny.Uni;
import java.time.Instant;

/**
 * One payment provider, behind the one interface the core speaks (Kill Bill's payment plugin API, cut to what
 * orderflow needs). An adapter only translates: it verifies and parses the provider's notifications into
 * {@link Notification}s, answers in the provider's own ack format, and makes the provider's API calls. It never
 * decides an order's state; what it returns goes through the one transition path.
 *
 * <p>Outbound calls never block the caller's thread and never fail: every outcome, including a timeout or an open
 * circuit breaker, comes back as a {@link ProviderOutcome} whose status tells the core what it may do next.
 */
public interface PaymentProvider {

    /** The name in {@code /payments/{name}/callbacks}, in {@code PAY {"provider": name}} and in the config. */
    String name();

    /**
     * Whether this deployment has the provider's settings. One that has not is known but not offered: PAY with it
     * is refused and its callbacks answer 404.
     */
    boolean configured();

    /**
     * Verifies a notification's signature over its raw bytes and parses it. A verified notification that is
     * unusable comes back as {@link Notification.Invalid}, one of a type orderflow does not act on as
     * {@link Notification.Ignored}: both are decided outcomes the provider must stop re-sending.
     *
     * @throws NotificationRejected when the notification cannot be verified (signature missing, wrong or stale)
     */
    Notification verify(NotificationRequest request, Instant now);

    /** The provider's success acknowledgement, stating (where its format allows) what the notification did. */
    Reply acknowledge(Acknowledgement ack);

    /**
     * The provider's failure answer for a notification refused or failed: status and text from {@code problem},
     * {@code retryAfter} (seconds, or null) for a transient failure.
     */
    Reply refuse(Problem problem, String retryAfter);

    /**
     * The name under which PAY's answer hands the shop's front end {@link PaymentSession#customerAction()}:
     * {@code clientSecret} (Stripe.js confirms the PaymentIntent with it) unless the provider's is something else.
     */
    default String customerActionName() {
        return "clientSecret";
    }

    /** Starts a payment for an attempt; a retry with the same attempt finds the same payment. */
    Uni<ProviderOutcome<PaymentSession>> createPayment(PaymentRequest request);

    /**
     * The shop front end's credential for a payment this service started, again: a replayed PAY carries it, since
     * the first answer's credential is never stored. By default the create is asked again with the same attempt —
     * right for a provider whose create stays idempotent by the attempt for as long as the payment can be paid
     * (WeChat Pay's {@code out_trade_no}, mockpay); a provider whose idempotency keys expire re-reads it instead.
     */
    default Uni<ProviderOutcome<PaymentSession>> resumePayment(PaymentRequest request, String reference) {
        return createPayment(request);
    }

    /** What the provider knows about a payment, by its reference. */
    Uni<ProviderOutcome<PaymentState>> queryPayment(String reference);

    /** Cancels (closes) a payment that has not been captured; PROCESSED when it can no longer be paid. */
    Uni<ProviderOutcome<Void>> cancelPayment(String reference);

    /** Refunds one capture in full, keyed by the command, so that a retry never refunds twice. */
    Uni<ProviderOutcome<RefundState>> createRefund(RefundRequest request);

    /** What the provider knows about the refund a command asked for. */
    Uni<ProviderOutcome<RefundState>> queryRefund(RefundRequest request);
}
