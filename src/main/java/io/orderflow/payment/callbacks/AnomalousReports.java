package io.orderflow.payment.callbacks;

import io.orderflow.common.Reply;
import io.orderflow.order.OrderService;
import io.orderflow.order.domain.IllegalTransitionException;
import io.orderflow.order.domain.OrderNotFoundException;
import io.orderflow.payment.anomalies.Anomalies;
import io.orderflow.payment.anomalies.PaymentAnomaly;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.PaymentProvider;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Notifications decided as anomalies: they move no order, and the provider must stop re-sending them, so each is
 * recorded where operators look ({@link Anomalies}, once per event and kind) and acknowledged with 2xx — one that
 * matches no attempt, one that is invalid, one for an order that is gone or cannot take it, a transaction id another
 * order owns, an amount that is not what was paid.
 */
@ApplicationScoped
public class AnomalousReports {

    private static final Logger LOG = Logger.getLogger(AnomalousReports.class);

    private final OrderService orders;
    private final Anomalies anomalies;
    private final Acknowledgements acks;

    public AnomalousReports(OrderService orders, Anomalies anomalies, Acknowledgements acks) {
        this.orders = orders;
        this.anomalies = anomalies;
        this.acks = acks;
    }

    /** No attempt of ours has the reference (or the attempt id is another order's): recorded, acknowledged. */
    Uni<Reply> unmatched(PaymentProvider provider, Notification.Correlated report) {
        String detail = "No payment attempt matches " + report.subject();
        LOG.warnf("%s event %s of type %s: %s", provider.name(), report.id(), report.type(), detail);
        UUID orderId = report.subject() instanceof Notification.ByOrder byOrder ? byOrder.orderId() : null;
        return anomalies.record(provider.name(), report.id(), orderId, PaymentReport.transactionOf(report),
                        PaymentAnomaly.Kind.UNKNOWN_ATTEMPT, detail)
                .map(done -> acks.acknowledge(provider, report, "unknown-attempt", null));
    }

    /** A verified event with a bad field: the provider must stop re-sending it, operators must see it. */
    Uni<Reply> invalid(PaymentProvider provider, Notification.Invalid invalid, UUID orderId) {
        LOG.warnf("%s event %s of type %s is invalid: %s", provider.name(), invalid.id(), invalid.type(),
                invalid.reason());
        return anomalies.record(provider.name(), invalid.id(), orderId, null, PaymentAnomaly.Kind.INVALID_EVENT,
                invalid.reason()).map(done -> acks.acknowledge(provider, invalid, "invalid", orderId, null));
    }

    /**
     * The provider sent other content under an event id whose first content was already decided: providers never
     * do, so operators must see it; the first content stands, and the provider hears 2xx so it stops re-sending.
     */
    Uni<Reply> eventReused(PaymentProvider provider, Notification.Correlated report, UUID orderId) {
        String detail = "Event " + report.id() + " arrived again with other content (" + report.type() + ") about"
                + " order " + orderId + "; its first content stands";
        LOG.warnf("%s event %s: %s", provider.name(), report.id(), detail);
        return anomalies.record(provider.name(), report.id(), orderId, PaymentReport.transactionOf(report),
                PaymentAnomaly.Kind.EVENT_REUSED, detail)
                .map(done -> acks.acknowledge(provider, report, "event-reused", orderId, null));
    }

    /** The attempt names an order there is no row of. */
    Uni<Reply> unknownOrder(PaymentProvider provider, Notification notification, PaymentReport report,
            UUID orderId) {
        return decided(provider, notification, report, orderId, PaymentAnomaly.Kind.UNKNOWN_ORDER,
                "No order " + orderId, "unknown-order", null);
    }

    /** The order's state cannot take the report's event (the table says so): a stale event. */
    Uni<Reply> illegal(PaymentProvider provider, Notification notification, PaymentReport report, UUID orderId,
            IllegalTransitionException illegal) {
        return decided(provider, notification, report, orderId, PaymentAnomaly.Kind.STALE_EVENT,
                illegal.getMessage(), "illegal", illegal.current().name());
    }

    /** The report's transaction id already belongs to order {@code owner}: nothing of it is kept. */
    Uni<Reply> txnReused(PaymentProvider provider, Notification notification, PaymentReport report, UUID orderId,
            UUID owner) {
        return orders.find(orderId, null).onFailure(OrderNotFoundException.class).recoverWithNull()
                .chain(order -> decided(provider, notification, report, orderId, PaymentAnomaly.Kind.TXN_REUSED,
                        "Transaction " + report.transactionId() + " already belongs to order " + owner,
                        "txn-reused", order == null ? null : order.status().name()));
    }

    /** A decided outcome that did not move the order: an anomaly, and 2xx so the provider stops re-sending. */
    Uni<Reply> decided(PaymentProvider provider, Notification notification, PaymentReport report, UUID orderId,
            PaymentAnomaly.Kind kind, String detail, String outcome, String orderStatus) {
        LOG.warnf("%s event %s of type %s: %s", provider.name(), notification.id(), notification.type(), detail);
        return anomalies.record(provider.name(), notification.id(), orderId, report.transactionId(), kind, detail)
                .map(done -> acks.acknowledge(provider, notification, outcome, orderId, orderStatus));
    }
}
