package io.orderflow.payment.attempts;

import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.order.OrderLookup;
import io.orderflow.order.TransitionCommand;
import io.orderflow.order.TransitionParticipant.Participation;
import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderField;
import io.orderflow.order.domain.OrderTransitions;
import io.orderflow.payment.PaymentProviders;
import io.orderflow.payment.spi.PaymentProvider;
import io.orderflow.payment.spi.PaymentRequest;
import io.orderflow.payment.spi.PaymentSession;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * PAY's payment attempt. The payment is created at the provider first, keyed by the attempt, whose id derives from
 * the request's Idempotency-Key, so a retried PAY finds the same PaymentIntent or Native order; then the attempt row
 * (replacing the order's pending one) and the order's current attempt ride in the move's statement. The shopper's
 * credential is handed to the front end in PAY's answer, and read again from the provider for a replayed PAY.
 */
@ApplicationScoped
public class AttemptStarts {

    private final PaymentProviders providers;
    private final OrderLookup orders;
    private final PaymentAttempts attempts;
    private final PaymentCancellations cancellations;

    public AttemptStarts(PaymentProviders providers, OrderLookup orders, PaymentAttempts attempts,
            PaymentCancellations cancellations) {
        this.providers = providers;
        this.orders = orders;
        this.attempts = attempts;
        this.cancellations = cancellations;
    }

    /** The attempt a PAY request starts: the same for every retry of the request. */
    static UUID attemptIdOf(TransitionCommand command) {
        String key = command.requestKey() != null ? command.requestKey() : UUID.randomUUID().toString();
        return UUID.nameUUIDFromBytes(("pay " + command.orderId() + " " + key).getBytes(StandardCharsets.UTF_8));
    }

    Uni<Participation> start(TransitionCommand command, EventDetails.Pay pay, Instant now) {
        PaymentProvider provider = providers.find(pay.provider()).orElseThrow(() -> ProblemException.of(
                ProblemType.PROVIDER_UNKNOWN, "No payment provider named " + pay.provider() + " is offered here; "
                        + "offered: " + providers.names()));
        UUID attemptId = attemptIdOf(command);
        return orders.find(command.orderId(), command.owner()).chain(order -> {
            if (!OrderTransitions.allows(order, OrderEvent.PAY, pay)
                    || command.ifMatch() != null && command.ifMatch() != order.version()) {
                // a duplicate, an illegal PAY or a stale If-Match: the transition says which; no payment is created
                // for it (a 412 is not stored, so the PAY retried with its key and the current version starts the
                // payment its attempt id names, which must not be one already cancelled here)
                return Uni.createFrom().item(Participation.NONE);
            }
            if (order.amount() == 0) {
                return Uni.createFrom().item(participation(order, attemptId, provider, null, now));
            }
            return provider.createPayment(payment(attemptId, order.id(), order.amount(), order.currency()))
                    .map(outcome -> switch (outcome.status()) {
                        case PROCESSED, PENDING -> participation(order, attemptId, provider, outcome.value(), now);
                        case ERROR -> throw ProblemException.of(ProblemType.PAYMENT_REFUSED,
                                provider.name() + " refused to start the payment: " + outcome.message());
                        case CANCELED, UNDEFINED -> throw noAnswer(provider);
                    });
        });
    }

    /**
     * A replayed PAY that started a payment still pending gets the shopper's credential again, read from the
     * provider (it is never stored). A provider that does not answer makes the replay a 503 to retry: without the
     * credential the answer would be useless to the front end.
     */
    Uni<Map<String, Object>> resume(TransitionCommand command) {
        if (command.event() != OrderEvent.PAY || command.requestKey() == null) {
            return Uni.createFrom().item(Map.of());
        }
        return attempts.find(attemptIdOf(command)).chain(attempt -> {
            PaymentProvider provider = attempt == null ? null : providers.find(attempt.provider()).orElse(null);
            if (provider == null || attempt.state() != PaymentAttempt.State.PENDING || attempt.reference() == null) {
                return Uni.createFrom().item(Map.<String, Object>of());
            }
            PaymentRequest request = payment(attempt.id(), attempt.orderId(), attempt.amount(), attempt.currency());
            return provider.resumePayment(request, attempt.reference()).map(outcome -> switch (outcome.status()) {
                case PROCESSED, PENDING -> outcome.value() == null || outcome.value().customerAction() == null
                        ? Map.<String, Object>of()
                        : Map.<String, Object>of("payment", paymentMember(attempt.id(), provider, outcome.value()));
                case ERROR -> Map.<String, Object>of();
                case CANCELED, UNDEFINED -> throw noAnswer(provider);
            });
        });
    }

    private Participation participation(Order order, UUID attemptId, PaymentProvider provider,
            PaymentSession session, Instant now) {
        String reference = session == null ? null : session.reference();
        Map<String, Object> payment = paymentMember(attemptId, provider, session);
        Map<OrderField, Object> changes = new EnumMap<>(OrderField.class);
        changes.put(OrderField.PAYMENT_ATTEMPT_ID, attemptId);
        // the order's own payment member already names the provider and the attempt: the answer only grows (and is
        // kept out of every store) when there is something for the shopper's front end, a credential
        boolean forFrontEnd = session != null && session.customerAction() != null;
        return new Participation(PaymentWrites.started(attemptId, provider.name(), reference, now), changes,
                forFrontEnd ? Map.of("payment", payment) : Map.of(),
                moved -> cancellations.afterPay(moved, order.id(), attemptId, provider, reference, order.amount(),
                        order.currency()));
    }

    /** The {@code payment} member of PAY's answer: the attempt, and what the shop's front end needs, if anything. */
    private static Map<String, Object> paymentMember(UUID attemptId, PaymentProvider provider,
            PaymentSession session) {
        Map<String, Object> payment = new LinkedHashMap<>();
        payment.put("attemptId", attemptId.toString());
        payment.put("provider", provider.name());
        String reference = session == null ? null : session.reference();
        if (reference != null) {
            payment.put("providerReference", reference);
        }
        if (session != null && session.customerAction() != null) {
            payment.put(provider.customerActionName(), session.customerAction().reveal());
        }
        return payment;
    }

    private static PaymentRequest payment(UUID attemptId, UUID orderId, long amount, String currency) {
        return new PaymentRequest(attemptId, orderId, amount, currency, "Order " + orderId);
    }

    /** The provider did not answer (or the circuit is open): the PAY is retried with its key, which is safe. */
    private static ProblemException noAnswer(PaymentProvider provider) {
        return new ProblemException(Problem.of(ProblemType.SERVICE_UNAVAILABLE, provider.name()
                + " did not answer; retry the PAY with the same Idempotency-Key"), "5");
    }
}
