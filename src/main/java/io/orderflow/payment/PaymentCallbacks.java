package io.orderflow.payment;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.Reply;
import io.orderflow.common.Times;
import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.idempotency.IdempotencyGate;
import io.orderflow.idempotency.KeyClaim;
import io.orderflow.idempotency.KeyedRequest;
import io.orderflow.idempotency.Tier;
import io.orderflow.order.OrderService;
import io.orderflow.order.TransitionCommand;
import io.orderflow.order.TransitionResult;
import io.orderflow.order.domain.AmountMismatchException;
import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.IllegalTransitionException;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderNotFoundException;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Receives provider notifications so that any number of deliveries has the effect of one. The adapter verifies and
 * parses; this core decides. The provider's event id is the idempotency key (scope: the provider), recorded in the
 * same statement as the order's transition, and the fingerprint is the validated notification, not its bytes. The
 * transition itself goes through the same path as API calls.
 */
@ApplicationScoped
public class PaymentCallbacks {

    private static final Logger LOG = Logger.getLogger(PaymentCallbacks.class);
    static final String OPERATION = "POST /payments/{provider}/callbacks";

    private final PaymentProviders providers;
    private final IdempotencyGate gate;
    private final OrderService orders;
    private final Anomalies anomalies;
    private final ProblemMapper problems;
    private final MeterRegistry registry;
    private final Times times;

    public PaymentCallbacks(PaymentProviders providers, IdempotencyGate gate, OrderService orders,
            Anomalies anomalies, ProblemMapper problems, MeterRegistry registry, Times times) {
        this.providers = providers;
        this.gate = gate;
        this.orders = orders;
        this.anomalies = anomalies;
        this.problems = problems;
        this.registry = registry;
        this.times = times;
    }

    /**
     * What a payment notification asks of its order: the event, and what the provider says was paid (a failure or
     * refund that names no amount: -1, which no order has).
     */
    record Report(OrderEvent event, String transactionId, long amount, String currency) {

        static Report of(Notification.Correlated notification) {
            if (notification instanceof Notification.PaymentSucceeded s) {
                return new Report(OrderEvent.PAYMENT_SUCCEEDED, s.transactionId(), s.amount(), s.currency());
            }
            if (notification instanceof Notification.PaymentFailed f) {
                return new Report(OrderEvent.PAYMENT_FAILED, f.transactionId(),
                        f.amount() == null ? -1 : f.amount(), f.currency());
            }
            if (notification instanceof Notification.RefundSucceeded r) {
                return new Report(OrderEvent.REFUND_SUCCEEDED, r.captureId(),
                        r.amount() == null ? -1 : r.amount(), r.currency());
            }
            throw new IllegalArgumentException("not a payment report: " + notification.type());
        }
    }

    public Uni<Reply> receive(String providerName, NotificationRequest request) {
        PaymentProvider provider = providers.find(providerName).orElseThrow(
                () -> ProblemException.of(ProblemType.NOT_FOUND, "No payment provider named " + providerName));
        Notification notification;
        try {
            notification = provider.verify(request, times.now());
        } catch (NotificationRejected rejected) {
            count(provider, "rejected");
            return Uni.createFrom().item(provider.refuse(rejected.problem(), null));
        }
        return Uni.createFrom().deferred(() -> decide(provider, notification))
                .onFailure().recoverWithItem(failure -> refusal(provider, failure));
    }

    private Uni<Reply> decide(PaymentProvider provider, Notification notification) {
        if (notification instanceof Notification.Ignored ignored) {
            count(provider, "ignored");
            LOG.infof("%s event %s of type %s ignored", provider.name(), ignored.id(), ignored.type());
            return Uni.createFrom().item(provider.acknowledge(new Acknowledgement(ignored, "ignored", null, null)));
        }
        if (notification instanceof Notification.Invalid invalid) {
            return recordInvalid(provider, invalid);
        }
        Notification.Correlated report = (Notification.Correlated) notification;
        if (report.subject() instanceof Notification.ByOrder byOrder) {
            return applyToOrder(provider, report, byOrder.orderId());
        }
        return Uni.createFrom().failure(new ProblemException(Problem.of(ProblemType.SERVICE_UNAVAILABLE,
                "Payments of this provider are matched to payment attempts, which this version does not keep yet;"
                        + " the event is left for the provider to re-send"), "60"));
    }

    /** A verified event with a bad field: the provider must stop re-sending it, operators must see it. */
    private Uni<Reply> recordInvalid(PaymentProvider provider, Notification.Invalid invalid) {
        count(provider, "invalid");
        LOG.warnf("%s event %s of type %s is invalid: %s", provider.name(), invalid.id(), invalid.type(),
                invalid.reason());
        UUID orderId = invalid.subject() instanceof Notification.ByOrder byOrder ? byOrder.orderId() : null;
        Uni<Void> recorded = orderId == null ? Uni.createFrom().voidItem()
                : anomalies.record(provider.name(), invalid.id(), orderId, null, PaymentAnomaly.Kind.INVALID_EVENT,
                        invalid.reason());
        return recorded.map(done -> provider.acknowledge(new Acknowledgement(invalid, "invalid", orderId, null)));
    }

    private Uni<Reply> applyToOrder(PaymentProvider provider, Notification.Correlated notification, UUID orderId) {
        Report report = Report.of(notification);
        KeyedRequest keyed = new KeyedRequest(notification.id(), true, "provider:" + provider.name(), OPERATION, "",
                notification.toString().getBytes(StandardCharsets.UTF_8), Tier.PAYMENTS, orderId,
                row -> ack(provider, notification, report, new TransitionResult(orders.recordedOrder(row), true)));
        return gate.execute(keyed, claim -> apply(provider, notification, report, orderId, claim));
    }

    private Uni<Reply> apply(PaymentProvider provider, Notification notification, Report report, UUID orderId,
            KeyClaim claim) {
        String name = provider.name();
        TransitionCommand command = new TransitionCommand(orderId, report.event(),
                new EventDetails.ProviderReport(name, report.transactionId(), report.amount(), report.currency()),
                null, name, notification.id(), null);
        return orders.transition(command, claim, result -> ack(provider, notification, report, result))
                .onFailure(OrderNotFoundException.class).call(() -> anomalies.record(name, notification.id(),
                        orderId, report.transactionId(), PaymentAnomaly.Kind.UNKNOWN_ORDER, "No order " + orderId))
                .onFailure(IllegalTransitionException.class).call(failure -> anomalies.record(name,
                        notification.id(), orderId, report.transactionId(), PaymentAnomaly.Kind.STALE_EVENT,
                        failure.getMessage()))
                .onFailure(AmountMismatchException.class).recoverWithUni(failure -> anomalies.record(name,
                        notification.id(), orderId, report.transactionId(), PaymentAnomaly.Kind.AMOUNT_MISMATCH,
                        failure.getMessage()).map(done -> new OrderService.Transitioned(null, provider.acknowledge(
                                new Acknowledgement(notification, "amount-mismatch", orderId, null)))))
                .call(done -> done.result() != null && isDoubleCapture(report, done.result())
                        ? anomalies.record(name, notification.id(), orderId, report.transactionId(),
                                PaymentAnomaly.Kind.DOUBLE_CAPTURE, "Captured again as " + report.transactionId()
                                        + " after " + done.result().order().payment().providerTxnId()
                                        + "; a refund is owed")
                        : Uni.createFrom().voidItem())
                .map(OrderService.Transitioned::reply);
    }

    /** A success with another transaction id for an order already paid: the customer was charged twice. */
    static boolean isDoubleCapture(Report report, TransitionResult result) {
        Order.Payment payment = result.order().payment();
        return !result.applied() && report.event() == OrderEvent.PAYMENT_SUCCEEDED && payment != null
                && payment.providerTxnId() != null && !payment.providerTxnId().equals(report.transactionId());
    }

    private Reply ack(PaymentProvider provider, Notification notification, Report report, TransitionResult result) {
        String outcome = result.applied() ? "applied" : isDoubleCapture(report, result) ? "double-capture"
                : "duplicate";
        return provider.acknowledge(new Acknowledgement(notification, outcome, result.order().id(),
                result.order().status().name()));
    }

    /** A failure answered in the provider's format; a transient one (5xx) makes the provider re-send. */
    private Reply refusal(PaymentProvider provider, Throwable failure) {
        Throwable cause = ProblemMapper.unwrap(failure);
        Problem problem = problems.toProblem(cause);
        String retryAfter = cause instanceof ProblemException pe && pe.retryAfter() != null ? pe.retryAfter()
                : problem.status() == 503 ? ProblemMapper.RETRY_AFTER_SECONDS : null;
        return provider.refuse(problem, retryAfter);
    }

    private void count(PaymentProvider provider, String outcome) {
        registry.counter("orderflow.payments.notifications", "provider", provider.name(), "outcome", outcome)
                .increment();
    }
}
