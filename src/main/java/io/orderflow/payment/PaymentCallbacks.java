package io.orderflow.payment;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.orderflow.common.Reply;
import io.orderflow.common.Times;
import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.idempotency.IdempotencyGate;
import io.orderflow.idempotency.IdempotencyKeys;
import io.orderflow.idempotency.KeyClaim;
import io.orderflow.idempotency.KeyedRequest;
import io.orderflow.idempotency.Tier;
import io.orderflow.order.OrderService;
import io.orderflow.order.TransitionCommand;
import io.orderflow.order.TransitionResult;
import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.AmountMismatchException;
import io.orderflow.order.domain.IllegalTransitionException;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderNotFoundException;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.UUID;

/**
 * Receives provider notifications so that any number of deliveries has the effect of one. The provider's event id
 * is the idempotency key (scope: the provider), recorded in the same statement as the order's transition; the
 * transition itself goes through the same path as API calls.
 */
@ApplicationScoped
public class PaymentCallbacks {

    private final PaymentsConfig config;
    private final IdempotencyGate gate;
    private final OrderService orders;
    private final Anomalies anomalies;
    private final ObjectMapper json;
    private final ObjectReader eventReader;
    private final Times times;
    private final ProblemMapper problems;

    public PaymentCallbacks(PaymentsConfig config, IdempotencyGate gate, OrderService orders, Anomalies anomalies,
            ObjectMapper json, Times times, ProblemMapper problems) {
        this.problems = problems;
        this.config = config;
        this.gate = gate;
        this.orders = orders;
        this.anomalies = anomalies;
        this.json = json;
        // providers add fields over time; unknown ones are ignored, never a reason to refuse a signed event
        this.eventReader = json.readerFor(ProviderEvent.class)
                .without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        this.times = times;
    }

    public Uni<Reply> receive(String providerName, String signatureHeader, byte[] rawBody) {
        PaymentsConfig.Provider provider = config.providers().get(providerName);
        if (provider == null) {
            throw ProblemException.of(ProblemType.NOT_FOUND, "No payment provider named " + providerName);
        }
        SignatureVerifier.verify(SignatureVerifier.parse(signatureHeader), rawBody, provider, times.now());
        ProviderEvent event;
        try {
            event = parse(rawBody).validated();
        } catch (ProblemException invalid) {
            return acknowledgeInvalid(providerName, rawBody, invalid.problem());
        }
        KeyedRequest keyed = new KeyedRequest(event.eventId(), true, "provider:" + providerName,
                "POST /payments/{provider}/callbacks", "", rawBody, Tier.PAYMENTS, event.order(),
                row -> ack(event, new TransitionResult(orders.recordedOrder(row), true)));
        return gate.execute(keyed, claim -> apply(providerName, event, claim));
    }

    private Uni<Reply> apply(String provider, ProviderEvent event, KeyClaim claim) {
        TransitionCommand command = new TransitionCommand(event.order(), event.event(),
                new EventDetails.ProviderReport(provider, event.providerTxnId(), event.amount(), event.currency()),
                null, provider, event.eventId(), null);
        return orders.transition(command, claim, result -> ack(event, result))
                .onFailure(OrderNotFoundException.class).call(() -> anomalies.record(provider, event,
                        PaymentAnomaly.Kind.UNKNOWN_ORDER, "No order " + event.orderId()))
                .onFailure(IllegalTransitionException.class).call(failure -> anomalies.record(provider, event,
                        PaymentAnomaly.Kind.STALE_EVENT, failure.getMessage()))
                .onFailure(AmountMismatchException.class).call(failure -> anomalies.record(provider, event,
                        PaymentAnomaly.Kind.AMOUNT_MISMATCH, failure.getMessage()))
                .onFailure(AmountMismatchException.class).transform(failure -> ProblemException.of(
                        ProblemType.AMOUNT_MISMATCH, failure.getMessage()))
                .call(done -> isDoubleCapture(event, done.result())
                        ? anomalies.record(provider, event, PaymentAnomaly.Kind.DOUBLE_CAPTURE,
                                "Captured again as " + event.providerTxnId() + " after "
                                        + done.result().order().payment().providerTxnId() + "; a refund is owed")
                        : Uni.createFrom().voidItem())
                .map(OrderService.Transitioned::reply);
    }

    /** A success with another transaction id for an order already paid: the customer was charged twice. */
    static boolean isDoubleCapture(ProviderEvent event, TransitionResult result) {
        Order.Payment payment = result.order().payment();
        return !result.applied() && event.event() == OrderEvent.PAYMENT_SUCCEEDED && payment != null
                && payment.providerTxnId() != null && !payment.providerTxnId().equals(event.providerTxnId());
    }

    private Reply ack(ProviderEvent event, TransitionResult result) {
        String outcome = result.applied() ? "applied" : isDoubleCapture(event, result) ? "double-capture" : "duplicate";
        return render(new CallbackAck(event.eventId(), result.order().id(), outcome, result.order().status()));
    }

    private Reply render(CallbackAck ack) {
        try {
            return new Reply(200, MediaType.APPLICATION_JSON, Map.of(), json.writeValueAsBytes(ack));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A signed event we cannot apply as sent (garbled JSON, a control character, a missing field): the provider
     * would re-send it for days on any non-2xx, so it is recorded as an anomaly for operators and acknowledged.
     */
    private Uni<Reply> acknowledgeInvalid(String provider, byte[] rawBody, Problem refusal) {
        ProviderEvent readable = readable(rawBody);
        String eventId = readable != null && ProviderEvent.isValidId(readable.eventId()) ? readable.eventId() : null;
        UUID orderId = readable != null && ProviderEvent.isUuid(readable.orderId()) ? readable.order() : null;
        String eventKey = eventId != null ? eventId : "sha256:" + IdempotencyKeys.fingerprint(rawBody);
        Object field = refusal.members().get("field");
        String detail = refusal.detail() + (field == null ? "" : " (field " + field + ")");
        return anomalies.recordInvalid(provider, orderId, eventKey, detail)
                .map(ignored -> render(new CallbackAck(eventKey, orderId, "invalid", null)));
    }

    private ProviderEvent readable(byte[] rawBody) {
        try {
            return eventReader.readValue(rawBody);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private ProviderEvent parse(byte[] rawBody) {
        try {
            ProviderEvent event = eventReader.readValue(rawBody);
            if (event == null) {
                throw ProblemException.of(ProblemType.MALFORMED_BODY, "The callback body is empty");
            }
            return event;
        } catch (IOException e) {
            throw new ProblemException(problems.toProblem(e));
        }
    }
}
