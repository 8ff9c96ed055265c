package io.orderflow.payment.callbacks;

import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.Reply;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.idempotency.IdempotencyKeys;
import io.orderflow.payment.PaymentProviders;
import io.orderflow.payment.attempts.PaymentAttempts;
import io.orderflow.payment.commands.ProviderCommands;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.NotificationRejected;
import io.orderflow.payment.spi.NotificationRequest;
import io.orderflow.payment.spi.PaymentProvider;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Receives provider notifications so that any number of deliveries has the effect of one. The adapter verifies and
 * parses; this core decides. Every event is matched to a payment attempt ({@link MatchedAttempt}) — by the
 * provider's reference, or for mockpay by the order and its optional attempt id — and goes through the same
 * transition path as API calls ({@link ReportTransitions}), with the provider's event id as idempotency key
 * ({@link ProviderEventGate}) recorded in the same statement: verify, match, decide ({@link ReportVerdict}),
 * act ({@link ReportActions}), acknowledge. Whatever the service decides (applied, duplicate, stale attempt, other
 * capture, illegal, mismatch, unknown) is acknowledged in the provider's format with 2xx; only a failure whose
 * outcome is unknown (database down, overload) is refused with 5xx, so the provider re-sends
 * ({@link Acknowledgements}).
 */
@ApplicationScoped
public class PaymentCallbacks {

    private static final Logger LOG = Logger.getLogger(PaymentCallbacks.class);
    /** The actor the history names for the moves the janitor's answers make. */
    public static final String RECONCILER = "reconciler";

    private final PaymentProviders providers;
    private final ProviderEventGate events;
    private final PaymentAttempts attempts;
    private final ProviderCommands commands;
    private final ReportTransitions transitions;
    private final ReportActions actions;
    private final Acknowledgements acks;
    private final RefundReports refundReports;
    private final MicrosecondClock time;

    public PaymentCallbacks(PaymentProviders providers, ProviderEventGate events, PaymentAttempts attempts,
            ProviderCommands commands, ReportTransitions transitions, ReportActions actions,
            Acknowledgements acks, RefundReports refundReports, MicrosecondClock time) {
        this.providers = providers;
        this.events = events;
        this.attempts = attempts;
        this.commands = commands;
        this.transitions = transitions;
        this.actions = actions;
        this.acks = acks;
        this.refundReports = refundReports;
        this.time = time;
    }

    public Uni<Reply> receive(String providerName, NotificationRequest request) {
        PaymentProvider provider = providers.find(providerName).orElseThrow(
                () -> ProblemException.of(ProblemType.NOT_FOUND, "No payment provider named " + providerName));
        Notification notification;
        try {
            notification = provider.verify(request, time.now());
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
    public Uni<Reply> reconcile(PaymentProvider provider, Notification notification) {
        return decide(provider, notification, RECONCILER);
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

    /**
     * A report about a payment: matched to its attempt, then decided once behind the gate — the transition path
     * moves the order or says why not, {@link ReportVerdict} judges that, {@link ReportActions} carries it out.
     */
    private Uni<Reply> matched(PaymentProvider provider, Notification.Correlated report, String actor) {
        return match(provider, report.subject()).chain(match -> ReportVerdict.ofMatch(report, match)
                .map(anomaly -> actions.record(provider, report, anomaly))
                .orElseGet(() -> events.once(provider, report, match.orderId(),
                        claim -> transitions.apply(provider, report, match, claim, actor),
                        () -> recordRefund(provider, report))));
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

    /**
     * A refund notification that names the provider's refund id: the refund is recorded once (with the command
     * that owes the capture's refund, if any), so that two refunds for one command would show.
     */
    private Uni<Void> recordRefund(PaymentProvider provider, Notification.Correlated report) {
        if (!(report instanceof Notification.RefundSucceeded refund) || refund.refundId() == null) {
            return Uni.createFrom().voidItem();
        }
        return commands.recordRefund(provider.name(), refund.refundId(), refund.captureId(), refund.refund(),
                time.now());
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
