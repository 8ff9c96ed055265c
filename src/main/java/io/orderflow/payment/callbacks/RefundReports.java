package io.orderflow.payment.callbacks;

import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.Reply;
import io.orderflow.order.OrderService;
import io.orderflow.order.domain.OrderNotFoundException;
import io.orderflow.payment.anomalies.Anomalies;
import io.orderflow.payment.anomalies.PaymentAnomaly;
import io.orderflow.payment.attempts.PaymentAttempts;
import io.orderflow.payment.attempts.PaymentCaptures;
import io.orderflow.payment.commands.ProviderCommands;
import io.orderflow.payment.refunds.RefundOutcomes;
import io.orderflow.payment.refunds.RefundView;
import io.orderflow.payment.refunds.Refunds;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.PaymentProvider;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * A provider's report about a refund, matched to the refund of ours it names — by what the service sent with the
 * request (Stripe {@code metadata[command_id]}, WeChat {@code out_refund_no}: the refund's id), so a report that
 * overtakes the answer to the service's own call still finds it, else by the provider's refund id — and settled
 * ({@link RefundOutcomes}). A report that names no refund of ours (Stripe's {@code charge.refunded}, mockpay's
 * older events) is about the whole capture and takes the payment path when refunds of ours stand behind it; a failure
 * of a refund that is not ours is logged; a second provider refund for one of ours, or a refund of a capture no refund
 * of ours was issued for, is money the service did not send: an anomaly, acknowledged. What each report means is
 * {@link RefundReportVerdict}'s to decide; this class looks up what it needs and carries the verdict out.
 */
@ApplicationScoped
public class RefundReports {

    private static final Logger LOG = Logger.getLogger(RefundReports.class);

    private final Refunds refunds;
    private final PaymentCaptures captures;
    private final RefundOutcomes outcomes;
    private final OrderService orders;
    private final Anomalies anomalies;
    private final Acknowledgements acks;
    private final ProviderCommands commands;
    private final MicrosecondClock time;
    private final ProviderEventGate events;
    private final PaymentAttempts attempts;

    public RefundReports(Refunds refunds, PaymentCaptures captures, RefundOutcomes outcomes, OrderService orders,
            Anomalies anomalies, Acknowledgements acks, ProviderCommands commands, MicrosecondClock time,
            ProviderEventGate events, PaymentAttempts attempts) {
        this.attempts = attempts;
        this.refunds = refunds;
        this.captures = captures;
        this.outcomes = outcomes;
        this.orders = orders;
        this.anomalies = anomalies;
        this.acks = acks;
        this.commands = commands;
        this.time = time;
        this.events = events;
    }

    /**
     * Looks up what the verdict needs (the refund of ours the report names, and for a success naming none the orders
     * its capture stands behind), decides ({@link RefundReportVerdict}) and carries the verdict out.
     *
     * @param actor who the history names for the order's move to REFUNDED: the provider, or the janitor
     * @param otherwise the payment path, for a report of a whole capture refunded that names no refund of ours
     */
    Uni<Reply> decide(PaymentProvider provider, Notification.Correlated report, String actor,
            Supplier<Uni<Reply>> otherwise) {
        return ours(provider.name(), RefundReportVerdict.namedRefund(report), RefundReportVerdict.providerRefund(report))
                .chain(refund -> reportedOrder(provider, report, refund).map(order -> RefundReportVerdict.of(report,
                        refund, order)))
                .chain(verdict -> {
                    if (verdict instanceof RefundReportVerdict.NotOurs notOurs) {
                        return captureOwners(provider.name(), notOurs.report());
                    }
                    return Uni.createFrom().item(verdict);
                })
                .chain(verdict -> act(provider, report, actor, verdict, otherwise));
    }

    private Uni<Reply> act(PaymentProvider provider, Notification.Correlated report, String actor,
            RefundReportVerdict verdict, Supplier<Uni<Reply>> otherwise) {
        if (verdict instanceof RefundReportVerdict.Settle settle) {
            return outcomes.settle(provider.name(), actor, settle.refund().id(), settle.status(),
                    settle.providerRefund(), settle.reason())
                    .call(() -> settle.recordsProviderRefund() ? commands.recordRefund(provider.name(),
                            settle.providerRefund(), settle.refund().captureTxnId(), settle.refund().id(), time.now())
                            : Uni.createFrom().voidItem())
                    .chain(settled -> acknowledged(provider, report, settle.refund().orderId(),
                            settled != null ? "applied" : "duplicate"));
        }
        if (verdict instanceof RefundReportVerdict.Unaccounted anomaly) {
            return anomaly(provider, report, anomaly.orderId(), anomaly.providerRefund(),
                    PaymentAnomaly.Kind.UNACCOUNTED_REFUND, anomaly.detail());
        }
        if (verdict instanceof RefundReportVerdict.Mismatch mismatch) {
            return anomaly(provider, report, mismatch.orderId(), mismatch.providerRefund(),
                    PaymentAnomaly.Kind.REFUND_MISMATCH, mismatch.detail());
        }
        if (verdict instanceof RefundReportVerdict.Ignored) {
            return ignored(provider, report);
        }
        if (verdict instanceof RefundReportVerdict.PaymentPath) {
            return otherwise.get();
        }
        throw new IllegalStateException("A verdict to decide further: " + verdict);
    }

    /** A success naming no refund of ours, decided from the order refunding its capture, else the one it paid. */
    private Uni<RefundReportVerdict> captureOwners(String provider, Notification.RefundSucceeded report) {
        return refunds.orderRefunding(provider, report.captureId()).chain(refunding -> refunding != null
                ? Uni.createFrom().item(RefundReportVerdict.ofNotOurs(report, refunding, null))
                : captures.paidOrder(provider, report.captureId())
                        .map(paid -> RefundReportVerdict.ofNotOurs(report, null, paid)));
    }

    /** The refund of ours a report names: by our id (and provider), else by the provider's refund id. */
    private Uni<RefundView> ours(String provider, UUID named, String providerRefund) {
        Uni<RefundView> byOurs = named == null ? Uni.createFrom().nullItem()
                : refunds.find(named).map(r -> r != null && r.provider().equals(provider) ? r : null);
        return byOurs.chain(found -> found != null || providerRefund == null ? Uni.createFrom().item(found)
                : refunds.findByProviderRefund(provider, providerRefund));
    }

    private Uni<Reply> acknowledged(PaymentProvider provider, Notification report, UUID orderId, String outcome) {
        return orders.find(orderId, null).onFailure(OrderNotFoundException.class).recoverWithNull()
                .map(order -> acks.acknowledge(provider, report, outcome, order));
    }

    private Uni<Reply> ignored(PaymentProvider provider, Notification report) {
        LOG.infof("%s event %s of type %s names no refund of ours", provider.name(), report.id(), report.type());
        return Uni.createFrom().item(acks.acknowledge(provider, report, "ignored", null));
    }

    /** Recorded once per event, like every decided report: a re-sent event gets the first answer. */
    private Uni<Reply> anomaly(PaymentProvider provider, Notification.Correlated report, UUID orderId,
            String providerRefund, PaymentAnomaly.Kind kind, String detail) {
        return events.once(provider, report, orderId, claim -> {
            LOG.warnf("%s event %s of type %s: %s", provider.name(), report.id(), report.type(), detail);
            return anomalies.record(provider.name(), report.id(), orderId, providerRefund, kind, detail)
                    .chain(() -> acknowledged(provider, report, orderId, kind.label));
        });
    }

    /**
     * The order whose payment a report is about, to hold it against the refund of ours it names: the order a mockpay
     * event names, or the order of the attempt a Stripe or WeChat Pay report names by its reference (null: none).
     * Not asked when the report names no refund of ours.
     */
    private Uni<UUID> reportedOrder(PaymentProvider provider, Notification.Correlated report, RefundView ours) {
        if (ours == null || report.subject() == null) {
            return Uni.createFrom().nullItem();
        }
        if (report.subject() instanceof Notification.ByOrder byOrder) {
            return Uni.createFrom().item(byOrder.orderId());
        }
        return attempts.findByReference(provider.name(), ((Notification.ByReference) report.subject()).reference())
                .map(attempt -> attempt == null ? null : attempt.orderId());
    }
}
