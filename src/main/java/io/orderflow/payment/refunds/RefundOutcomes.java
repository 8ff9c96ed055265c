package io.orderflow.payment.refunds;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.order.OrderService;
import io.orderflow.order.TransitionCommand;
import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.IllegalTransitionException;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.order.domain.OrderTransitions;
import io.orderflow.payment.PaymentProviders;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * What a provider said about one refund of ours — in a notification, in answer to the worker or to the
 * reconciler's question, whichever comes first — applied once ({@link Refunds#settle}): SUCCEEDED adds to the
 * order's refunded amount, and once that reaches the capture the order moves to REFUNDED through the transition
 * table (REFUND_COMPLETED; REFUND_SUCCEEDED for a cancelled order's refund, as before refunds were issued one by one);
 * FAILED is never silent: a WARN with the provider's reason, the count in
 * {@code orderflow_payments_refunds_total{provider,status}}, the refund listed under {@code GET /refunds?status=FAILED},
 * and its amount released from the capture, owed again.
 */
@ApplicationScoped
public class RefundOutcomes {

    private static final Logger LOG = Logger.getLogger(RefundOutcomes.class);
    public static final String METRIC = "orderflow.payments.refunds";

    private final Refunds refunds;
    private final OrderService orders;
    private final PaymentProviders providers;
    private final MeterRegistry registry;
    private final MicrosecondClock time;

    public RefundOutcomes(Refunds refunds, OrderService orders, PaymentProviders providers, MeterRegistry registry,
            MicrosecondClock time) {
        this.refunds = refunds;
        this.orders = orders;
        this.providers = providers;
        this.registry = registry;
        this.time = time;
    }

    /** Every series exists from startup, so an alert on failed refunds has a zero to compare with. */
    void register(@Observes StartupEvent started) {
        for (String provider : providers.names()) {
            for (RefundView.Status status : RefundView.Status.values()) {
                counter(provider, status);
            }
        }
    }

    /**
     * Applies {@code status} to refund {@code id} when it is still PENDING (the refund as settled, or null when it
     * had been settled before), and moves its order to REFUNDED when its refunds have given the capture back —
     * which a repeat checks again, so a crash between the two is mended by the next report.
     *
     * @param actor who the history names for that move (the provider, the janitor, the refund worker)
     */
    public Uni<RefundView> settle(String provider, String actor, UUID id, RefundView.Status status,
            String providerRefundId, String reason) {
        return refunds.settle(id, status, providerRefundId, reason, time.now()).call(settled -> {
            if (settled != null && status == RefundView.Status.FAILED) {
                failed(provider, settled, reason);
            } else if (settled != null) {
                counter(provider, status).increment();
            }
            return status == RefundView.Status.SUCCEEDED ? refunds.find(id).chain(r -> completeIfWhole(r, actor))
                    : Uni.createFrom().voidItem();
        });
    }

    /**
     * The provider refused to make the refund that command {@code id} asked for (the worker's call answered ERROR):
     * the command and its refund FAILED in one statement ({@link Refunds#failWhenSent}), fenced by the worker's
     * {@code claim}; false when a newer claim holds the command. A refund failed here is counted and logged as any.
     */
    public Uni<Boolean> failedWhenSent(String provider, UUID id, UUID claim, String providerRefundId, String outcome,
            String reason) {
        return refunds.failWhenSent(id, claim, providerRefundId, outcome, reason, time.now()).map(failed -> {
            if (failed.refund() != null) {
                failed(provider, failed.refund(), reason);
            }
            return failed.claimHeld();
        });
    }

    private void failed(String provider, RefundView refund, String reason) {
        counter(provider, RefundView.Status.FAILED).increment();
        LOG.warnf("%s did not make refund %s of order %s (%d %s): %s; its amount is owed again", provider,
                refund.id(), refund.orderId(), refund.amount(), refund.currency(), reason);
    }

    /** The refund's order moves to REFUNDED once its refunds that succeeded add up to its capture. */
    private Uni<Void> completeIfWhole(RefundView refund, String actor) {
        if (refund == null || refund.status() != RefundView.Status.SUCCEEDED) {
            return Uni.createFrom().voidItem();
        }
        return orders.find(refund.orderId(), null).chain(order -> {
            if (!isWhollyRefunded(order)) {
                return Uni.createFrom().voidItem();
            }
            Order.Payment payment = order.payment();
            EventDetails.ProviderReport details = new EventDetails.ProviderReport(payment.provider(),
                    payment.providerTxnId(), order.amount(), order.currency());
            // a cancelled order's refund ends as it always has; refunds issued one by one complete the order
            OrderEvent event = order.status() == OrderStatus.REFUND_PENDING ? OrderEvent.REFUND_SUCCEEDED
                    : OrderEvent.REFUND_COMPLETED;
            TransitionCommand command = new TransitionCommand(order.id(), event, details, null, payment.provider(),
                    actor, null, null);
            return orders.transition(command, null, result -> null).replaceWithVoid()
                    // another report completed it first
                    .onFailure(IllegalTransitionException.class).recoverWithNull();
        });
    }

    static boolean isWhollyRefunded(Order order) {
        return order.payment() != null && order.payment().refundedAmount() >= order.amount()
                && (order.status() == OrderStatus.REFUND_PENDING
                        || OrderTransitions.allows(order.status(), OrderEvent.REFUND_COMPLETED));
    }

    private Counter counter(String provider, RefundView.Status status) {
        return registry.counter(METRIC, "provider", provider, "status", status.name().toLowerCase());
    }
}
