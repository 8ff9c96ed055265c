package io.orderflow.payment;

import io.orderflow.common.Reply;
import io.orderflow.common.Times;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.idempotency.IdempotencyGate;
import io.orderflow.idempotency.IdempotencyKeys;
import io.orderflow.idempotency.KeyedRequest;
import io.orderflow.idempotency.Tier;
import io.orderflow.order.OrderService;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import org.jboss.logging.Logger;

/**
 * Receives provider notifications so that any number of deliveries has the effect of one. The adapter verifies and
 * parses; this core decides. Every event is matched to a payment attempt ({@link MatchedAttempt}) — by the
 * provider's reference, or for mockpay by the order and its optional attempt id — and goes through the same
 * transition path as API calls ({@link ReportTransitions}), with the provider's event id as idempotency key (scope:
 * the provider) recorded in the same statement and the validated notification as fingerprint. Whatever the service
 * decides (applied, duplicate, stale attempt, other capture, illegal, mismatch, unknown) is acknowledged in the
 * provider's format with 2xx; only a failure whose outcome is unknown (database down, overload) is refused with 5xx,
 * so the provider re-sends ({@link Acknowledgements}).
 */
@ApplicationScoped
public class PaymentCallbacks {

    private static final Logger LOG = Logger.getLogger(PaymentCallbacks.class);
    static final String OPERATION = "POST /payments/{provider}/callbacks";

    private final PaymentProviders providers;
    private final IdempotencyGate gate;
    private final OrderService orders;
    private final PaymentAttempts attempts;
    private final ProviderCommands commands;
    private final ReportTransitions transitions;
    private final AnomalousReports anomalous;
    private final Acknowledgements acks;
    private final RefundReports refundReports;
    private final Times times;

    public PaymentCallbacks(PaymentProviders providers, IdempotencyGate gate, OrderService orders,
            PaymentAttempts attempts, ProviderCommands commands, ReportTransitions transitions,
            AnomalousReports anomalous, Acknowledgements acks, RefundReports refundReports, Times times) {
        this.providers = providers;
        this.gate = gate;
        this.orders = orders;
        this.attempts = attempts;
        this.commands = commands;
        this.transitions = transitions;
        this.anomalous = anomalous;
        this.acks = acks;
        this.refundReports = refundReports;
        this.times = times;
    }

    public Uni<Reply> receive(String providerName, NotificationRequest request) {
        PaymentProvider provider = providers.find(providerName).orElseThrow(
                () -> ProblemException.of(ProblemType.NOT_FOUND, "No payment provider named " + providerName));
        Notification notification;
        try {
            notification = provider.verify(request, times.now());
        } catch (NotificationRejected rejected) {
            return Uni.createFrom().item(acks.rejected(provider, rejected));
        }
        return Uni.createFrom().deferred(() -> decide(provider, notification, provider.name()))
                .onFailure().recoverWithItem(failure -> acks.refuse(provider, failure));
    }

    /**
     * What the provider said when asked (reconciliation), applied exactly like a notification of it: the same
     * matching, transition path and dedup (the notification's id, in the provider's scope, says what was asked); the
     * history names the janitor as the move's actor.
     */
    Uni<Reply> reconcile(PaymentProvider provider, Notification notification) {
        return decide(provider, notification, Reconciler.ACTOR);
    }

    /** @param actor who the history says made a move: the provider, or the janitor that asked it */
    private Uni<Reply> decide(PaymentProvider provider, Notification notification, String actor) {
        if (notification instanceof Notification.Ignored ignored) {
            LOG.infof("%s event %s of type %s ignored", provider.name(), ignored.id(), ignored.type());
            return Uni.createFrom().item(acks.acknowledge(provider, notification, "ignored", null));
        }
        Notification.Correlated report = storable((Notification.Correlated) notification);
        if (report instanceof Notification.RefundSucceeded || report instanceof Notification.RefundFailed) {
            return refundReports.decide(provider, report, actor, () -> matched(provider, report, actor));
        }
        return matched(provider, report, actor);
    }

    /** A report about a payment, matched to its attempt and applied through the transition path. */
    private Uni<Reply> matched(PaymentProvider provider, Notification.Correlated report, String actor) {
        return match(provider, report.subject()).chain(match -> {
            if (report instanceof Notification.Invalid invalid) {
                return anomalous.invalid(provider, invalid, match == null ? null : match.orderId());
            }
            if (match == null) {
                return anomalous.unmatched(provider, report);
            }
            KeyedRequest keyed = new KeyedRequest(report.id(), true, "provider:" + provider.name(), OPERATION, "",
                    report.toString().getBytes(StandardCharsets.UTF_8), Tier.PAYMENTS, match.orderId(),
                    row -> acks.acknowledge(provider, report, "applied", orders.recordedOrder(row)));
            return gate.execute(keyed, claim -> transitions.apply(provider, report, match, claim, actor))
                    .call(() -> recordRefund(provider, report))
                    .onFailure(PaymentCallbacks::isKeyReused)
                    .recoverWithUni(() -> anomalous.eventReused(provider, report, match.orderId()));
        });
    }

    /**
     * A verified event is the provider's word, whatever its id: one the dedup record cannot take as it is (not
     * 1–255 printable ASCII, say {@code évt-1}) is an anomaly under {@code sha256:<hex of the id>}, never the
     * client API's 400 idempotency-key-invalid, which the provider would re-send for days.
     */
    private static Notification.Correlated storable(Notification.Correlated report) {
        if (report instanceof Notification.Invalid || IdempotencyKeys.isWellFormed(report.id())) {
            return report; // an anomaly's event id is text, and an invalid event's id is already safe text
        }
        String derived = "sha256:" + IdempotencyKeys.fingerprint(report.id());
        return new Notification.Invalid(derived, report.type(), report.subject(),
                "The event id is not 1 to 255 printable ASCII characters; recorded under " + derived);
    }

    /** The provider sent another content under an event id it used before (its dedup record says so). */
    private static boolean isKeyReused(Throwable failure) {
        return ProblemMapper.unwrap(failure) instanceof ProblemException reused
                && reused.problem().type().equals(ProblemType.IDEMPOTENCY_KEY_REUSED.uri());
    }

    /**
     * A refund notification that names the provider's refund id: the refund is recorded once (with the command
     * that owes the capture's refund, if any), so that two refunds for one command would show.
     */
    private Uni<Void> recordRefund(PaymentProvider provider, Notification.Correlated report) {
        if (!(report instanceof Notification.RefundSucceeded refund) || refund.refundId() == null) {
            return Uni.createFrom().voidItem();
        }
        return commands.recordRefund(provider.name(), refund.refundId(), refund.captureId(), refund.refund(),
                times.now());
    }

    /** By the provider's reference (Stripe, WeChat Pay), or by order and optional attempt id (mockpay). */
    private Uni<MatchedAttempt> match(PaymentProvider provider, Notification.Subject subject) {
        if (subject == null) {
            return Uni.createFrom().nullItem();
        }
        if (subject instanceof Notification.ByReference byReference) {
            return attempts.findByReference(provider.name(), byReference.reference())
                    .map(a -> a == null ? null : MatchedAttempt.of(a));
        }
        Notification.ByOrder byOrder = (Notification.ByOrder) subject;
        if (byOrder.attemptId() == null) {
            return Uni.createFrom().item(new MatchedAttempt(byOrder.orderId(), null, null));
        }
        return attempts.find(byOrder.attemptId()).map(a -> a == null || !a.orderId().equals(byOrder.orderId()) ? null
                : MatchedAttempt.of(a));
    }
}
