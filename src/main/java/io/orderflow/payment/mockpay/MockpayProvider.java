package io.orderflow.payment.mockpay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.common.Reply;
import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.payment.spi.Acknowledgement;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.NotificationRequest;
import io.orderflow.payment.spi.PaymentProvider;
import io.orderflow.payment.spi.PaymentRequest;
import io.orderflow.payment.spi.PaymentSession;
import io.orderflow.payment.spi.PaymentState;
import io.orderflow.payment.spi.ProviderOutcome;
import io.orderflow.payment.spi.RefundRequest;
import io.orderflow.payment.spi.RefundState;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.MediaType;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * mockpay: HMAC-signed JSON callbacks ({@code Payment-Signature}, Stripe's scheme) and no API of its own. Its
 * outbound calls are local and always "under way": the outcome of a mockpay payment or refund arrives as a
 * callback, which dev setups and tests post themselves.
 */
@ApplicationScoped
public class MockpayProvider implements PaymentProvider {

    public static final String NAME = "mockpay";

    private final MockpayConfig config;
    private final ObjectMapper json;
    private final ProblemMapper problems;

    public MockpayProvider(MockpayConfig config, ObjectMapper json, ProblemMapper problems) {
        this.config = config;
        this.json = json;
        this.problems = problems;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean configured() {
        return config.secrets().filter(secrets -> !secrets.isEmpty()).isPresent();
    }

    @Override
    public Notification verify(NotificationRequest request, Instant now) {
        SignatureVerifier.Parsed signature = SignatureVerifier.parse(request.header(SignatureVerifier.HEADER));
        SignatureVerifier.verify(signature, request.body(), config.secrets().orElse(List.of()), config.tolerance(),
                now);
        return MockpayEvents.parse(request.body());
    }

    @Override
    public Reply acknowledge(Acknowledgement ack) {
        try {
            byte[] body = json.writeValueAsBytes(new CallbackAck(ack.notification().id(), ack.orderId(),
                    ack.outcome(), ack.orderStatus()));
            return new Reply(200, MediaType.APPLICATION_JSON, Map.of(), body);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Reply refuse(Problem problem, String retryAfter) {
        return problems.toReply(problem, retryAfter);
    }

    @Override
    public Uni<ProviderOutcome<PaymentSession>> createPayment(PaymentRequest request) {
        String reference = "mockpay_" + request.compactAttemptId();
        // nothing for a front end to do: the PAY's answer is the order, exactly as a replay renders it
        return Uni.createFrom().item(ProviderOutcome.pending(new PaymentSession(reference, null)));
    }

    @Override
    public Uni<ProviderOutcome<PaymentState>> queryPayment(String reference) {
        return Uni.createFrom().item(ProviderOutcome.pending(new PaymentState(reference, null, null, null, null)));
    }

    @Override
    public Uni<ProviderOutcome<Void>> cancelPayment(String reference) {
        return Uni.createFrom().item(ProviderOutcome.processed(null));
    }

    @Override
    public Uni<ProviderOutcome<RefundState>> createRefund(RefundRequest request) {
        return queryRefund(request);
    }

    @Override
    public Uni<ProviderOutcome<RefundState>> queryRefund(RefundRequest request) {
        return Uni.createFrom().item(ProviderOutcome.pending(new RefundState(request.refundId(),
                request.captureId(), request.amount(), request.currency(), null)));
    }
}
