package io.orderflow.payment;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.orderflow.common.Reply;
import io.orderflow.common.Times;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.idempotency.IdempotencyGate;
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

    public PaymentCallbacks(PaymentsConfig config, IdempotencyGate gate, OrderService orders, Anomalies anomalies,
            ObjectMapper json, Times times) {
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
        ProviderEvent event = parse(rawBody).validated();
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
        try {
            byte[] body = json.writeValueAsBytes(
                    new CallbackAck(event.eventId(), result.order().id(), outcome, result.order().status()));
            return new Reply(200, MediaType.APPLICATION_JSON, Map.of(), body);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
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
            throw ProblemException.of(ProblemType.MALFORMED_BODY, "The callback body is not the expected JSON");
        }
    }
}
