package io.orderflow.payment.callbacks;

import io.orderflow.common.Reply;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.idempotency.IdempotencyGate;
import io.orderflow.idempotency.KeyClaim;
import io.orderflow.idempotency.KeyedRequest;
import io.orderflow.idempotency.RetentionTier;
import io.orderflow.order.OrderService;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.PaymentProvider;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A provider's event decided once: through the idempotency gate with the provider's event id as key (scope: the
 * provider) and the validated notification as fingerprint, so a re-sent event gets the first answer, byte for byte,
 * whichever decision made it (a move, or an anomaly that moved nothing). The same id with other content is an
 * {@code event-reused} anomaly, the first content standing.
 */
@ApplicationScoped
public class ProviderEventGate {

    static final String OPERATION = "POST /payments/{provider}/callbacks";

    private final IdempotencyGate gate;
    private final OrderService orders;
    private final ReportActions actions;
    private final Acknowledgements acks;

    public ProviderEventGate(IdempotencyGate gate, OrderService orders, ReportActions actions,
            Acknowledgements acks) {
        this.gate = gate;
        this.orders = orders;
        this.actions = actions;
        this.acks = acks;
    }

    /** {@code action} decides the event about order {@code orderId} the first time. */
    Uni<Reply> once(PaymentProvider provider, Notification.Correlated report, UUID orderId,
            Function<KeyClaim, Uni<Reply>> action) {
        return once(provider, report, orderId, action, () -> Uni.createFrom().voidItem());
    }

    /** As {@link #once(PaymentProvider, Notification.Correlated, UUID, Function)}, then {@code after} unless reused. */
    Uni<Reply> once(PaymentProvider provider, Notification.Correlated report, UUID orderId,
            Function<KeyClaim, Uni<Reply>> action, Supplier<Uni<Void>> after) {
        KeyedRequest keyed = new KeyedRequest(report.id(), true, "provider:" + provider.name(), OPERATION, "",
                report.toString().getBytes(StandardCharsets.UTF_8), RetentionTier.PAYMENTS, orderId,
                row -> acks.acknowledge(provider, report, "applied", orders.recordedOrder(row)));
        return gate.execute(keyed, action).call(after::get)
                .onFailure(ProviderEventGate::isKeyReused)
                .recoverWithUni(() -> actions.record(provider, report,
                        ReportVerdict.eventReused(report, orderId)));
    }

    /** The provider sent another content under an event id it used before (its dedup record says so). */
    private static boolean isKeyReused(Throwable failure) {
        return ProblemMapper.unwrap(failure) instanceof ProblemException reused
                && reused.problem().type().equals(ProblemType.IDEMPOTENCY_KEY_REUSED.uri());
    }
}
