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
import io.orderflow.order.domain.NotConcernedException;
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
 * parses; this core decides. Every event is matched to a payment attempt ({@link Match}) — by the provider's
 * reference, or for mockpay by the order and its optional attempt id — and goes through the same transition path as
 * API calls, with the provider's event id as idempotency key (scope: the provider) recorded in the same statement and
 * the validated notification as fingerprint. Whatever the service decides (applied, duplicate, stale attempt, other
 * capture, illegal, mismatch, unknown) is acknowledged in the provider's format with 2xx; only a failure whose outcome
 * is unknown (database down, overload) is refused with 5xx, so the provider re-sends.
 */
@ApplicationScoped
public class PaymentCallbacks {

    private static final Logger LOG = Logger.getLogger(PaymentCallbacks.class);
    static final String OPERATION = "POST /payments/{provider}/callbacks";
    /** What the service decided about a notification, on every acknowledgement (and so in its stored record). */
    public static final String OUTCOME_HEADER = "Payment-Outcome";

    private final PaymentProviders providers;
    private final IdempotencyGate gate;
    private final OrderService orders;
    private final PaymentAttempts attempts;
    private final PaymentCaptures captures;
    private final ProviderCommands commands;
    private final Anomalies anomalies;
    private final ProblemMapper problems;
    private final MeterRegistry registry;
    private final Times times;

    public PaymentCallbacks(PaymentProviders providers, IdempotencyGate gate, OrderService orders,
            PaymentAttempts attempts, PaymentCaptures captures, ProviderCommands commands, Anomalies anomalies,
            ProblemMapper problems, MeterRegistry registry, Times times) {
        this.commands = commands;
        this.providers = providers;
        this.gate = gate;
        this.orders = orders;
        this.attempts = attempts;
        this.captures = captures;
        this.anomalies = anomalies;
        this.problems = problems;
        this.registry = registry;
        this.times = times;
    }

    /** The payment a notification is about: its order and attempt (null: the order's current one). */
    record Match(UUID orderId, UUID attemptId, PaymentAttempt attempt) {
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

    /**
     * What the provider said when asked (reconciliation), applied exactly like a notification of it: the same
     * matching, transition path and dedup (the notification's id, in the provider's scope, says what was asked).
     */
    Uni<Reply> reconcile(PaymentProvider provider, Notification notification) {
        return decide(provider, notification);
    }

    private Uni<Reply> decide(PaymentProvider provider, Notification notification) {
        if (notification instanceof Notification.Ignored ignored) {
            LOG.infof("%s event %s of type %s ignored", provider.name(), ignored.id(), ignored.type());
            return Uni.createFrom().item(acknowledge(provider, notification, "ignored", null));
        }
        Notification.Correlated report = (Notification.Correlated) notification;
        return match(provider, report.subject()).chain(match -> {
            if (report instanceof Notification.Invalid invalid) {
                return recordInvalid(provider, invalid, match == null ? null : match.orderId());
            }
            if (match == null) {
                return unmatched(provider, report);
            }
            KeyedRequest keyed = new KeyedRequest(report.id(), true, "provider:" + provider.name(), OPERATION, "",
                    report.toString().getBytes(StandardCharsets.UTF_8), Tier.PAYMENTS, match.orderId(),
                    row -> acknowledge(provider, report, "applied", orders.recordedOrder(row)));
            return gate.execute(keyed, claim -> apply(provider, report, match, claim))
                    .call(() -> recordRefund(provider, report));
        });
    }

    /**
     * A refund notification that names the provider's refund id: the refund is recorded once (with the command
     * that owes the capture's refund, if any), so that two refunds for one command would show.
     */
    private Uni<Void> recordRefund(PaymentProvider provider, Notification.Correlated report) {
        if (!(report instanceof Notification.RefundSucceeded refund) || refund.refundId() == null) {
            return Uni.createFrom().voidItem();
        }
        return commands.recordRefund(provider.name(), refund.refundId(), refund.captureId(), times.now());
    }

    /** By the provider's reference (Stripe, WeChat Pay), or by order and optional attempt id (mockpay). */
    private Uni<Match> match(PaymentProvider provider, Notification.Subject subject) {
        if (subject == null) {
            return Uni.createFrom().nullItem();
        }
        if (subject instanceof Notification.ByReference byReference) {
            return attempts.findByReference(provider.name(), byReference.reference())
                    .map(a -> a == null ? null : new Match(a.orderId(), a.id(), a));
        }
        Notification.ByOrder byOrder = (Notification.ByOrder) subject;
        if (byOrder.attemptId() == null) {
            return Uni.createFrom().item(new Match(byOrder.orderId(), null, null));
        }
        return attempts.find(byOrder.attemptId()).map(a -> a == null || !a.orderId().equals(byOrder.orderId()) ? null
                : new Match(a.orderId(), a.id(), a));
    }

    /** No attempt of ours has the reference (or the attempt id is another order's): recorded, acknowledged. */
    private Uni<Reply> unmatched(PaymentProvider provider, Notification.Correlated report) {
        String detail = "No payment attempt matches " + report.subject();
        LOG.warnf("%s event %s of type %s: %s", provider.name(), report.id(), report.type(), detail);
        UUID orderId = report.subject() instanceof Notification.ByOrder byOrder ? byOrder.orderId() : null;
        return anomalies.record(provider.name(), report.id(), orderId, transactionOf(report),
                        PaymentAnomaly.Kind.UNKNOWN_ATTEMPT, detail)
                .map(done -> acknowledge(provider, report, "unknown-attempt", null));
    }

    /** A verified event with a bad field: the provider must stop re-sending it, operators must see it. */
    private Uni<Reply> recordInvalid(PaymentProvider provider, Notification.Invalid invalid, UUID orderId) {
        LOG.warnf("%s event %s of type %s is invalid: %s", provider.name(), invalid.id(), invalid.type(),
                invalid.reason());
        return anomalies.record(provider.name(), invalid.id(), orderId, null, PaymentAnomaly.Kind.INVALID_EVENT,
                invalid.reason()).map(done -> acknowledge(provider, invalid, "invalid", orderId, null));
    }

    /**
     * A transaction id belongs to one order: the capture row the move writes in its statement makes a reuse on
     * another order fail the whole statement (nothing moves), and a second capture that names another order's
     * transaction is not kept; both are answered {@code txn-reused}. No read before the move: one round trip.
     */
    private Uni<Reply> apply(PaymentProvider provider, Notification.Correlated notification, Match match,
            KeyClaim claim) {
        Report report = Report.of(notification, match);
        String name = provider.name();
        EventDetails.ProviderReport details = new EventDetails.ProviderReport(name, report.transactionId(),
                report.amount(), report.currency(), match.attemptId());
        TransitionCommand command = new TransitionCommand(match.orderId(), report.event(), details, null, name,
                notification.id(), null);
        return orders.transition(command, claim, result -> ack(provider, notification, report, result))
                .chain(done -> isDoubleCapture(report, done.result())
                        ? doubleCapture(provider, notification, report, match, done.result().order(), done.reply())
                        : Uni.createFrom().item(done.reply()))
                .onFailure(OrderNotFoundException.class).recoverWithUni(() -> decided(provider, notification,
                        report, match.orderId(), PaymentAnomaly.Kind.UNKNOWN_ORDER, "No order " + match.orderId(),
                        "unknown-order", null))
                .onFailure(IllegalTransitionException.class).recoverWithUni(failure -> decided(provider,
                        notification, report, match.orderId(), PaymentAnomaly.Kind.STALE_EVENT, failure.getMessage(),
                        "illegal", ((IllegalTransitionException) failure).current().name()))
                .onFailure(AmountMismatchException.class).recoverWithUni(failure -> amountMismatch(provider,
                        notification, report, match, (AmountMismatchException) failure))
                .onFailure(NotConcernedException.class).recoverWithUni(failure -> notConcerned(provider,
                        notification, report, match, ((NotConcernedException) failure).order()))
                .onFailure(PaymentCallbacks::isCaptureTaken).recoverWithUni(() -> captures.owner(name,
                        report.transactionId()).chain(owner -> txnReused(provider, notification, report, match,
                                owner)));
    }

    /**
     * A report about a payment the order does not stand on: a failure of a superseded attempt only fails that
     * attempt; a refund of a capture that did not pay the order (a double capture's) only closes that capture.
     */
    private Uni<Reply> notConcerned(PaymentProvider provider, Notification notification, Report report, Match match,
            Order order) {
        if (report.event() == OrderEvent.PAYMENT_FAILED) {
            LOG.infof("%s event %s: a failure of attempt %s, which order %s no longer stands on", provider.name(),
                    notification.id(), match.attemptId(), order.id());
            count(provider, "stale-attempt");
            return attempts.markFailed(match.attemptId(), times.now())
                    .map(done -> acknowledge(provider, notification, "stale-attempt", order));
        }
        return otherCapture(provider, notification, report, order);
    }

    /**
     * A refund of a capture that did not pay the order (a double capture's): matched to that capture first, then
     * its amount checked against what that capture took, never against the order's.
     */
    private Uni<Reply> otherCapture(PaymentProvider provider, Notification notification, Report report,
            Order order) {
        return captures.refund(provider.name(), report.transactionId(), order.id(), report.amount(),
                report.currency(), times.now()).chain(refund -> switch (refund) {
                    case REFUNDED -> Uni.createFrom().item(acknowledge(provider, notification, "other-capture", order));
                    case AMOUNT_MISMATCH -> decided(provider, notification, report, order.id(),
                            PaymentAnomaly.Kind.AMOUNT_MISMATCH, "A refund of " + report.amount() + " "
                                    + report.currency() + " of capture " + report.transactionId()
                                    + ", which took another amount", "amount-mismatch", order.status().name());
                    case UNKNOWN -> decided(provider, notification, report, order.id(),
                            PaymentAnomaly.Kind.UNKNOWN_CAPTURE, "A refund of " + report.transactionId()
                                    + ", which no capture of the order has", "unknown-capture",
                            order.status().name());
                });
    }

    /**
     * The report's amount is not the order's. A capture of an order another capture already paid is still money
     * taken twice (a double capture, with its own amount owed back); a refund of a capture other than the order's
     * own is judged against that capture; anything else is the order's amount mismatch.
     */
    private Uni<Reply> amountMismatch(PaymentProvider provider, Notification notification, Report report,
            Match match, AmountMismatchException mismatch) {
        Order order = mismatch.order();
        String own = order.payment() == null ? null : order.payment().providerTxnId();
        boolean another = own != null && !own.equals(report.transactionId());
        if (another && report.event() == OrderEvent.PAYMENT_SUCCEEDED) {
            return doubleCapture(provider, notification, report, match, order,
                    acknowledge(provider, notification, "double-capture", order));
        }
        if (another && report.event() == OrderEvent.REFUND_SUCCEEDED) {
            return otherCapture(provider, notification, report, order);
        }
        return decided(provider, notification, report, match.orderId(), PaymentAnomaly.Kind.AMOUNT_MISMATCH,
                mismatch.getMessage(), "amount-mismatch", order.status().name());
    }

    private Uni<Reply> txnReused(PaymentProvider provider, Notification notification, Report report, Match match,
            UUID owner) {
        return orders.find(match.orderId(), null).onFailure(OrderNotFoundException.class).recoverWithNull()
                .chain(order -> decided(provider, notification, report, match.orderId(),
                        PaymentAnomaly.Kind.TXN_REUSED, "Transaction " + report.transactionId()
                                + " already belongs to order " + owner, "txn-reused",
                        order == null ? null : order.status().name()));
    }

    /**
     * Records a second capture of a paid order: kept with a refund owed, and an anomaly for operators — unless its
     * transaction id is another order's (refused, {@code txn-reused}).
     */
    private Uni<Reply> doubleCapture(PaymentProvider provider, Notification notification, Report report, Match match,
            Order order, Reply reply) {
        UUID attempt = match.attemptId() != null ? match.attemptId()
                : order.payment() == null ? null : order.payment().attemptId();
        return captures.recordDoubleCapture(attempt, order.id(), provider.name(), report.transactionId(),
                        report.amount(), report.currency(), times.now())
                .chain(() -> captures.owner(provider.name(), report.transactionId()))
                .chain(owner -> owner != null && !owner.equals(order.id())
                        ? txnReused(provider, notification, report, match, owner)
                        : anomalies.record(provider.name(), notification.id(), order.id(), report.transactionId(),
                                PaymentAnomaly.Kind.DOUBLE_CAPTURE, "Captured again as " + report.transactionId()
                                        + " (" + report.amount() + " " + report.currency() + ") after "
                                        + order.payment().providerTxnId() + "; a refund is owed")
                                .replaceWith(reply));
    }

    /** A decided outcome that did not move the order: an anomaly, and 2xx so the provider stops re-sending. */
    private Uni<Reply> decided(PaymentProvider provider, Notification notification, Report report, UUID orderId,
            PaymentAnomaly.Kind kind, String detail, String outcome, String orderStatus) {
        LOG.warnf("%s event %s of type %s: %s", provider.name(), notification.id(), notification.type(), detail);
        return anomalies.record(provider.name(), notification.id(), orderId, report.transactionId(), kind, detail)
                .map(done -> acknowledge(provider, notification, outcome, orderId, orderStatus));
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
        return acknowledge(provider, notification, outcome, result.order());
    }

    private Reply acknowledge(PaymentProvider provider, Notification notification, String outcome, Order order) {
        return acknowledge(provider, notification, outcome, order == null ? null : order.id(),
                order == null ? null : order.status().name());
    }

    private Reply acknowledge(PaymentProvider provider, Notification notification, String outcome, UUID orderId,
            String status) {
        count(provider, outcome);
        return provider.acknowledge(new Acknowledgement(notification, outcome, orderId, status))
                .withHeader(OUTCOME_HEADER, outcome);
    }

    /** A failure answered in the provider's format; a transient one (5xx) makes the provider re-send. */
    private Reply refusal(PaymentProvider provider, Throwable failure) {
        Throwable cause = ProblemMapper.unwrap(failure);
        Problem problem = problems.toProblem(cause);
        if (problem.type().equals(ProblemType.REQUEST_IN_FLIGHT.uri())) {
            // another delivery of the event is being decided: transient for the provider, which re-sends on a 5xx
            problem = Problem.of(ProblemType.SERVICE_UNAVAILABLE, problem.detail());
        }
        String retryAfter = cause instanceof ProblemException pe && pe.retryAfter() != null ? pe.retryAfter()
                : problem.status() == 503 ? ProblemMapper.RETRY_AFTER_SECONDS : null;
        count(provider, problem.status() >= 500 ? "transient" : "refused");
        return provider.refuse(problem, retryAfter);
    }

    /** The statement failed on {@code payment_captures}' primary key: another order took the transaction id. */
    private static boolean isCaptureTaken(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("payment_captures_pkey")) {
                return true;
            }
        }
        return false;
    }

    private static String transactionOf(Notification.Correlated report) {
        return report instanceof Notification.PaymentSucceeded s ? s.transactionId()
                : report instanceof Notification.PaymentFailed f ? f.transactionId()
                : report instanceof Notification.RefundSucceeded r ? r.captureId() : null;
    }

    private void count(PaymentProvider provider, String outcome) {
        registry.counter("orderflow.payments.notifications", "provider", provider.name(), "outcome", outcome)
                .increment();
    }

    /**
     * What a notification asks of its order: the event, the capture it names, and what the provider says was paid
     * (for a failure or refund that names no amount, the attempt's).
     */
    record Report(OrderEvent event, String transactionId, long amount, String currency) {

        static Report of(Notification.Correlated notification, Match match) {
            if (notification instanceof Notification.PaymentSucceeded s) {
                return new Report(OrderEvent.PAYMENT_SUCCEEDED, s.transactionId(), s.amount(), s.currency());
            }
            if (notification instanceof Notification.PaymentFailed f) {
                return new Report(OrderEvent.PAYMENT_FAILED, f.transactionId(), amount(f.amount(), match),
                        currency(f.currency(), match));
            }
            if (notification instanceof Notification.RefundSucceeded r) {
                return new Report(OrderEvent.REFUND_SUCCEEDED, r.captureId(), amount(r.amount(), match),
                        currency(r.currency(), match));
            }
            throw new IllegalArgumentException("not a payment report: " + notification.type());
        }

        private static long amount(Long reported, Match match) {
            return reported != null ? reported : match.attempt() != null ? match.attempt().amount() : -1;
        }

        private static String currency(String reported, Match match) {
            return reported != null ? reported : match.attempt() != null ? match.attempt().currency() : null;
        }
    }
}
