package io.orderflow.payment.callbacks;

import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.Reply;
import io.orderflow.order.OrderService;
import io.orderflow.order.domain.OrderNotFoundException;
import io.orderflow.payment.anomalies.Anomalies;
import io.orderflow.payment.anomalies.PaymentAnomaly;
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
 * of ours was issued for, is money the service did not send: an anomaly, acknowledged.
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

    public RefundReports(Refunds refunds, PaymentCaptures captures, RefundOutcomes outcomes, OrderService orders,
            Anomalies anomalies, Acknowledgements acks, ProviderCommands commands, MicrosecondClock time,
            ProviderEventGate events) {
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
     * @param actor who the history names for the order's move to REFUNDED: the provider, or the janitor
     * @param otherwise the payment path, for a report of a whole capture refunded that names no refund of ours
     */
    Uni<Reply> decide(PaymentProvider provider, Notification.Correlated report, String actor,
            Supplier<Uni<Reply>> otherwise) {
        UUID named = report instanceof Notification.RefundSucceeded s ? s.refund()
                : ((Notification.RefundFailed) report).refund();
        String providerRefund = report instanceof Notification.RefundSucceeded s ? s.refundId()
                : ((Notification.RefundFailed) report).refundId();
        return ours(provider.name(), named, providerRefund).chain(refund -> {
            if (refund == null) {
                return report instanceof Notification.RefundSucceeded s ? unknown(provider, s, otherwise)
                        : ignored(provider, report);
            }
            if (providerRefund != null && refund.providerRefundId() != null
                    && !providerRefund.equals(refund.providerRefundId())) {
                return anomaly(provider, report, refund.orderId(), providerRefund, "Refund " + providerRefund
                        + " names refund " + refund.id() + ", which the provider made as "
                        + refund.providerRefundId());
            }
            boolean succeeded = report instanceof Notification.RefundSucceeded;
            String reason = report instanceof Notification.RefundFailed f ? f.reason() : null;
            return outcomes.settle(provider.name(), actor, refund.id(), succeeded ? RefundView.Status.SUCCEEDED
                    : RefundView.Status.FAILED, providerRefund, reason)
                    .call(() -> succeeded && providerRefund != null ? commands.recordRefund(provider.name(),
                            providerRefund, refund.captureTxnId(), refund.id(), time.now())
                            : Uni.createFrom().voidItem())
                    .chain(settled -> acknowledged(provider, report, refund.orderId(),
                            settled != null ? "applied" : "duplicate"));
        });
    }

    /**
     * A provider refund that names no refund of ours. Of a capture our refunds give back it is money the service did
     * not send, unless it is a report of the whole capture without a refund id (Stripe's {@code charge.refunded}),
     * which takes the payment path as before; of the capture that paid its order while no refund of ours was ever
     * issued for it (a refund made at the provider's dashboard), it is money the service did not send too, whatever
     * the report names — never a stale event. A refund of any other capture (a double capture's, one unknown) takes
     * the payment path. Each anomaly names the order and the provider's refund id (the capture's, for a report that
     * names none).
     */
    private Uni<Reply> unknown(PaymentProvider provider, Notification.RefundSucceeded report,
            Supplier<Uni<Reply>> otherwise) {
        if (report.captureId() == null) {
            return otherwise.get();
        }
        String named = report.refundId() != null ? report.refundId() : report.captureId();
        return refunds.orderRefunding(provider.name(), report.captureId()).chain(refunding -> {
            if (refunding != null) {
                return report.refundId() == null ? otherwise.get() : anomaly(provider, report, refunding, named,
                        "Refund " + named + " of " + report.captureId() + " (" + report.amount()
                                + ") is no refund the service sent");
            }
            return captures.paidOrder(provider.name(), report.captureId()).chain(paid -> paid == null
                    ? otherwise.get()
                    : anomaly(provider, report, paid, named, "Refund " + named + " of " + report.captureId() + " ("
                            + report.amount() + ") gives back a capture the service issued no refund of"));
        });
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
            String providerRefund, String detail) {
        return events.once(provider, report, orderId, claim -> {
            LOG.warnf("%s event %s of type %s: %s", provider.name(), report.id(), report.type(), detail);
            return anomalies.record(provider.name(), report.id(), orderId, providerRefund,
                    PaymentAnomaly.Kind.UNACCOUNTED_REFUND, detail)
                    .chain(() -> acknowledged(provider, report, orderId, "unaccounted-refund"));
        });
    }
}
