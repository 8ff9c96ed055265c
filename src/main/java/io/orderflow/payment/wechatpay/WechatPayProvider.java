package io.orderflow.payment.wechatpay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.wechat.pay.java.core.util.PemUtil;
import io.orderflow.common.Reply;
import io.orderflow.common.problem.Problem;
import io.orderflow.payment.spi.Acknowledgement;
import io.orderflow.payment.spi.Credential;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.NotificationRequest;
import io.orderflow.payment.spi.PaymentProvider;
import io.orderflow.payment.spi.PaymentRequest;
import io.orderflow.payment.spi.PaymentSession;
import io.orderflow.payment.spi.PaymentState;
import io.orderflow.payment.spi.ProviderCalls;
import io.orderflow.payment.spi.ProviderOutcome;
import io.orderflow.payment.spi.RefundRequest;
import io.orderflow.payment.spi.RefundState;
import io.smallrye.faulttolerance.api.Guard;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.MediaType;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * WeChat Pay API v3, Native payments: PAY creates a payment whose {@code code_url} the shop shows as a QR code;
 * the shopper scans it in WeChat, and the outcome arrives as a signed, encrypted notification. References are the
 * attempt id ({@code out_trade_no}) and the refund command id ({@code out_refund_no}), 32 hex characters each.
 */
@ApplicationScoped
public class WechatPayProvider implements PaymentProvider {

    public static final String NAME = "wechatpay";

    private final ProviderCalls calls;
    private final ObjectMapper json;
    private final boolean configured;
    private final String merchantId;
    private final WechatNotifications notifications;
    private final WechatPayApi api;
    private final Guard guard;

    public WechatPayProvider(WechatPayConfig config, ProviderCalls calls, ObjectMapper json) {
        this.calls = calls;
        this.json = json;
        this.configured = config.complete();
        this.merchantId = config.merchantId().orElse(null);
        this.notifications = configured ? new WechatNotifications(
                PemUtil.loadPublicKeyFromPath(config.platformPublicKey().orElseThrow()),
                config.platformPublicKeyId().orElseThrow(), config.apiV3Key().orElseThrow(), merchantId,
                config.tolerance()) : null;
        this.api = configured ? new WechatPayApi(config) : null;
        this.guard = configured ? ProviderCalls.guard(NAME, config) : null;
    }

    /** The Native payment's {@code code_url}, which the front end shows as a QR code. */
    @Override
    public String customerActionName() {
        return "codeUrl";
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean configured() {
        return configured;
    }

    @Override
    public Notification verify(NotificationRequest request, Instant now) {
        return notifications.verify(request, now);
    }

    /** WeChat Pay wants 200 or 204 and no body for a notification it may stop re-sending. */
    @Override
    public Reply acknowledge(Acknowledgement ack) {
        return new Reply(204, null, Map.of(), new byte[0]);
    }

    /** WeChat Pay's failure answer: the status, and {@code {"code":"FAIL","message":...}}. */
    @Override
    public Reply refuse(Problem problem, String retryAfter) {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("code", "FAIL");
        body.put("message", problem.detail() == null ? problem.title() : problem.detail());
        try {
            return new Reply(problem.status(), MediaType.APPLICATION_JSON,
                    retryAfter == null ? Map.of() : Map.of("Retry-After", retryAfter), json.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Uni<ProviderOutcome<PaymentSession>> createPayment(PaymentRequest request) {
        String outTradeNo = request.compactAttemptId();
        return calls.call(NAME, guard, "create-payment", () -> api.prepay(request, outTradeNo),
                codeUrl -> codeUrl == null || codeUrl.isBlank()
                        ? ProviderOutcome.of(ProviderOutcome.Status.UNDEFINED, "invalid-object",
                                "WeChat Pay answered without a code_url")
                        : ProviderOutcome.pending(new PaymentSession(outTradeNo, new Credential(codeUrl))));
    }

    @Override
    public Uni<ProviderOutcome<PaymentState>> queryPayment(String reference) {
        return call("query-payment", () -> api.queryTransaction(reference),
                transaction -> WechatObjects.transaction(transaction, merchantId));
    }

    /** Closing an order that was paid in the meantime fails with ORDERPAID: an ERROR the core resolves by a query. */
    @Override
    public Uni<ProviderOutcome<Void>> cancelPayment(String reference) {
        return calls.call(NAME, guard, "cancel-payment", () -> api.close(reference),
                closed -> ProviderOutcome.processed(null));
    }

    /** WeChat needs the capture's total with the refund: a full refund gives back exactly that. */
    @Override
    public Uni<ProviderOutcome<RefundState>> createRefund(RefundRequest request) {
        return call("create-refund", () -> api.refund(request, request.compactCommandId(), request.amount()),
                WechatObjects::refund);
    }

    /** By out_refund_no, which is the command: RESOURCE_NOT_EXISTS means no refund was made for it (not found). */
    @Override
    public Uni<ProviderOutcome<RefundState>> queryRefund(RefundRequest request) {
        return call("query-refund", () -> api.queryRefund(request.compactCommandId()), WechatObjects::refund)
                .map(outcome -> outcome.is(ProviderOutcome.Status.ERROR)
                        && "RESOURCE_NOT_EXISTS".equals(outcome.code())
                                ? ProviderOutcome.<RefundState>notFound("WeChat Pay has no refund for this command")
                                : outcome);
    }

    private <T> Uni<ProviderOutcome<T>> call(String operation, Supplier<Uni<JsonNode>> request,
            Function<JsonNode, ProviderOutcome<T>> read) {
        return calls.call(NAME, guard, operation, request, read);
    }
}
