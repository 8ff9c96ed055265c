package io.orderflow.payment;

import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.order.OrderService;
import io.orderflow.order.TransitionCommand;
import io.orderflow.order.TransitionParticipant;
import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderField;
import io.orderflow.order.domain.OrderTransitions;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * The payment module's part in an order's transitions. PAY starts an attempt: the payment is created at the provider
 * first (keyed by the attempt, whose id derives from the request's Idempotency-Key, so a retried PAY finds the same
 * PaymentIntent or Native order), then the attempt row and the order's current attempt ride in the move's statement.
 * A provider's report records the capture, the failure or the refund on the attempt in the same statement.
 */
@ApplicationScoped
public class PaymentParticipant implements TransitionParticipant {

    private static final Logger LOG = Logger.getLogger(PaymentParticipant.class);

    private final PaymentProviders providers;
    private final OrderService orders;
    private final PaymentAttempts attempts;

    public PaymentParticipant(PaymentProviders providers, OrderService orders, PaymentAttempts attempts) {
        this.providers = providers;
        this.orders = orders;
        this.attempts = attempts;
    }

    @Override
    public Uni<Participation> participate(TransitionCommand command, Instant now) {
        if (command.details() instanceof EventDetails.Pay pay) {
            return startAttempt(command, pay, now);
        }
        if (command.details() instanceof EventDetails.ProviderReport report) {
            List<io.orderflow.common.SameStatementWrite> writes = new java.util.ArrayList<>(
                    reportWrites(command, report, now));
            if (command.event() == OrderEvent.PAYMENT_SUCCEEDED) {
                writes.add(ProviderCommands.refundOwedBy(now)); // a capture after a cancel goes back
            }
            return Uni.createFrom().item(new Participation(writes, Map.of(), Map.of(),
                    Participation.NONE.afterwards()));
        }
        if (command.event() == OrderEvent.CANCEL) {
            // a CANCEL of a paid order owes the refund of its capture: a durable command, in the same statement
            return Uni.createFrom().item(new Participation(List.of(ProviderCommands.refundOwedBy(now)), Map.of(),
                    Map.of(), Participation.NONE.afterwards()));
        }
        return Uni.createFrom().item(Participation.NONE);
    }

    /** The attempt a PAY request starts: the same for every retry of the request. */
    static UUID attemptIdOf(TransitionCommand command) {
        String key = command.requestKey() != null ? command.requestKey() : UUID.randomUUID().toString();
        return UUID.nameUUIDFromBytes(("pay " + command.orderId() + " " + key).getBytes(StandardCharsets.UTF_8));
    }

    private Uni<Participation> startAttempt(TransitionCommand command, EventDetails.Pay pay, Instant now) {
        PaymentProvider provider = providers.find(pay.provider()).orElseThrow(() -> ProblemException.of(
                ProblemType.PROVIDER_UNKNOWN, "No payment provider named " + pay.provider() + " is offered here; "
                        + "offered: " + providers.names()));
        UUID attemptId = attemptIdOf(command);
        return orders.find(command.orderId(), command.owner()).chain(order -> {
            if (!OrderTransitions.allows(order, OrderEvent.PAY, pay)) {
                // a duplicate or an illegal PAY: the transition says which; no payment is created for it
                return Uni.createFrom().item(Participation.NONE);
            }
            if (order.amount() == 0) {
                return Uni.createFrom().item(participation(attemptId, provider, null, now));
            }
            return provider.createPayment(new PaymentRequest(attemptId, order.id(), order.amount(), order.currency(),
                    "Order " + order.id())).map(outcome -> switch (outcome.status()) {
                        case PROCESSED, PENDING -> participation(attemptId, provider, outcome.value(), now);
                        case ERROR -> throw ProblemException.of(ProblemType.PAYMENT_REFUSED,
                                provider.name() + " refused to start the payment: " + outcome.message());
                        case CANCELED, UNDEFINED -> throw new ProblemException(Problem.of(
                                ProblemType.SERVICE_UNAVAILABLE, provider.name() + " did not answer; retry the PAY"
                                        + " with the same Idempotency-Key"), "5");
                    });
        });
    }

    /**
     * A replayed PAY that started a payment still pending gets the shopper's credential again, read from the
     * provider (it is never stored). A provider that does not answer makes the replay a 503 to retry: without the
     * credential the answer would be useless to the front end.
     */
    @Override
    public Uni<Map<String, Object>> replayReply(TransitionCommand command) {
        if (command.event() != OrderEvent.PAY || command.requestKey() == null) {
            return Uni.createFrom().item(Map.of());
        }
        return attempts.find(attemptIdOf(command)).chain(attempt -> {
            PaymentProvider provider = attempt == null ? null : providers.find(attempt.provider()).orElse(null);
            if (provider == null || attempt.state() != PaymentAttempt.State.PENDING || attempt.reference() == null) {
                return Uni.createFrom().item(Map.<String, Object>of());
            }
            PaymentRequest request = new PaymentRequest(attempt.id(), attempt.orderId(), attempt.amount(),
                    attempt.currency(), "Order " + attempt.orderId());
            return provider.resumePayment(request, attempt.reference()).map(outcome -> switch (outcome.status()) {
                case PROCESSED, PENDING -> outcome.value() == null || outcome.value().customerAction() == null
                        ? Map.<String, Object>of()
                        : Map.<String, Object>of("payment", paymentMember(attempt.id(), provider, outcome.value()));
                case ERROR -> Map.<String, Object>of();
                case CANCELED, UNDEFINED -> throw new ProblemException(Problem.of(ProblemType.SERVICE_UNAVAILABLE,
                        provider.name() + " did not answer; retry the PAY with the same Idempotency-Key"), "5");
            });
        });
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

    private Participation participation(UUID attemptId, PaymentProvider provider, PaymentSession session,
            Instant now) {
        String reference = session == null ? null : session.reference();
        Map<String, Object> payment = paymentMember(attemptId, provider, session);
        Map<OrderField, Object> changes = new java.util.EnumMap<>(OrderField.class);
        changes.put(OrderField.PAYMENT_ATTEMPT_ID, attemptId);
        // the order's own payment member already names the provider and the attempt: the answer only grows (and is
        // kept out of every store) when there is something for the shopper's front end, a credential
        boolean forFrontEnd = session != null && session.customerAction() != null;
        return new Participation(PaymentWrites.started(attemptId, provider.name(), reference, now), changes,
                forFrontEnd ? Map.of("payment", payment) : Map.of(),
                moved -> moved ? cancelReplaced(attemptId) : abandon(attemptId, provider, reference));
    }

    /**
     * After a PAY that replaced a pending attempt: the attempts its own statement marked replaced (they name it in
     * {@code replaced_by}; the order's attempt as read before the statement may have been replaced by another PAY
     * meanwhile) are cancelled at their provider, so the shopper cannot finish paying them. Best effort: a success
     * that still arrives for one is a capture like any other.
     */
    private Uni<Void> cancelReplaced(UUID by) {
        return attempts.replacedBy(by).chain(replaced -> Multi.createFrom().iterable(replaced)
                .onItem().transformToUniAndConcatenate(attempt -> attempt.reference() == null ? Uni.createFrom()
                        .voidItem() : providers.find(attempt.provider()).map(p -> cancelAt(p, attempt.reference(),
                                "replaced attempt " + attempt.id())).orElse(Uni.createFrom().voidItem()))
                .collect().asList().replaceWithVoid())
                .onFailure().recoverWithUni(failure -> {
                    LOG.warnf("The attempts replaced by %s could not be read to cancel them: %s", by,
                            failure.getMessage());
                    return Uni.createFrom().voidItem();
                });
    }

    /**
     * A payment created for a PAY whose move was then decided against: cancelled, unless its attempt was stored.
     * The attempt id derives from the order and the Idempotency-Key, so copies of one PAY (on two replicas while
     * Redis is down) create the same PaymentIntent or out_trade_no; a copy that finds the attempt stored lost to
     * another copy of itself, which handed that very payment to the shopper. When the attempt cannot be read, the
     * payment is left as it is: a payment left payable is a capture to refund, a cancelled one a shopper stranded.
     */
    private Uni<Void> abandon(UUID attemptId, PaymentProvider provider, String reference) {
        if (reference == null) {
            return Uni.createFrom().voidItem();
        }
        return attempts.find(attemptId).chain(stored -> stored != null ? Uni.createFrom().voidItem()
                : cancelAt(provider, reference, "a payment left behind by a PAY that did not move the order"))
                .onFailure().recoverWithUni(failure -> {
                    LOG.warnf("%s: payment %s of a PAY that did not move the order is left as it is; its attempt"
                            + " could not be read: %s", provider.name(), reference, failure.getMessage());
                    return Uni.createFrom().voidItem();
                });
    }

    private static Uni<Void> cancelAt(PaymentProvider provider, String reference, String what) {
        return provider.cancelPayment(reference).invoke(outcome -> {
            if (!outcome.is(ProviderOutcome.Status.PROCESSED)) {
                LOG.warnf("%s: cancelling %s (%s) came to %s %s", provider.name(), what, reference, outcome.status(),
                        outcome.code());
            }
        }).replaceWithVoid().onFailure().recoverWithNull().replaceWithVoid();
    }

    private static List<io.orderflow.common.SameStatementWrite> reportWrites(TransitionCommand command,
            EventDetails.ProviderReport report, Instant now) {
        return switch (command.event()) {
            case PAYMENT_SUCCEEDED -> PaymentWrites.captured(report.attemptId(), report.provider(),
                    report.providerTxnId(), report.amount(), report.currency(), now);
            case PAYMENT_FAILED -> List.of(PaymentWrites.failed(report.attemptId(), now));
            case REFUND_SUCCEEDED -> List.of(PaymentWrites.refunded(report.provider(), report.providerTxnId(), now));
            default -> List.of();
        };
    }
}
