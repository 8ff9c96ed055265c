package io.orderflow.payment.wechatpay;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static io.orderflow.payment.wechatpay.WechatFixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.orderflow.payment.PaymentSandbox;
import io.orderflow.payment.SandboxedProviderTest;
import io.orderflow.payment.spi.PaymentRequest;
import io.orderflow.payment.spi.PaymentSession;
import io.orderflow.payment.spi.PaymentState;
import io.orderflow.payment.spi.ProviderOutcome;
import io.orderflow.payment.spi.ProviderOutcome.Status;
import io.orderflow.payment.spi.RefundRequest;
import io.orderflow.payment.spi.RefundState;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * WeChat Pay's API played by a real HTTP server that answers as WeChat documents it and signs every answer as it
 * sends it; the tests check the requests' WECHATPAY2-SHA256-RSA2048 signatures with the merchant public key.
 */
@QuarkusTest
@WithTestResource(PaymentSandbox.class)
class WechatPayProviderTest extends SandboxedProviderTest {

    private static final String CODE_URL = "weixin://wxpay/bizpayurl?pr=aIQrOYOzz";

    @Inject
    WechatPayProvider wechat;

    @Override
    protected String provider() {
        return WechatPayProvider.NAME;
    }

    private static PaymentRequest payment() {
        return new PaymentRequest(UUID.randomUUID(), UUID.randomUUID(), 2500, "CNY", "Order 42");
    }

    private List<LoggedRequest> prepays() {
        return server.findAll(postRequestedFor(urlEqualTo("/v3/pay/transactions/native")));
    }

    private void assertSignedByMerchant(LoggedRequest request) {
        sandbox.wechat().assertSignedByMerchant(request);
    }

    @Test
    void shouldCreateANativePaymentSignedByTheMerchantKeyedByTheAttempt() throws Exception {
        PaymentRequest request = payment();
        server.stubFor(post("/v3/pay/transactions/native").willReturn(okJson("{\"code_url\":\"" + CODE_URL + "\"}")));
        ProviderOutcome<PaymentSession> outcome = await(wechat.createPayment(request));
        assertEquals(Status.PENDING, outcome.status());
        assertEquals(request.compactAttemptId(), outcome.value().reference());
        assertEquals(CODE_URL, outcome.value().customerAction().reveal());
        assertFalse(outcome.toString().contains("bizpayurl"), "the code_url never prints");
        LoggedRequest sent = prepays().get(0);
        assertSignedByMerchant(sent);
        JsonNode body = new ObjectMapper().readTree(sent.getBodyAsString());
        assertEquals(APP_ID, body.get("appid").asText());
        assertEquals(MERCHANT_ID, body.get("mchid").asText());
        assertEquals(request.compactAttemptId(), body.get("out_trade_no").asText());
        assertEquals(NOTIFY_URL, body.get("notify_url").asText());
        assertEquals("Order 42", body.get("description").asText());
        assertEquals(2500, body.path("amount").get("total").asInt());
        assertEquals("CNY", body.path("amount").get("currency").asText());
    }

    @Test
    void shouldRetryASystemErrorWithTheSameOutTradeNoAndSettleOnTheAnswerThatFollows() {
        server.stubFor(post("/v3/pay/transactions/native").inScenario("busy").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(systemError()).willSetStateTo("ok"));
        server.stubFor(post("/v3/pay/transactions/native").inScenario("busy").whenScenarioStateIs("ok")
                .willReturn(okJson("{\"code_url\":\"" + CODE_URL + "\"}")));
        assertEquals(Status.PENDING, await(wechat.createPayment(payment())).status());
        assertEquals(2, prepays().size());
        assertEquals(1, prepays().stream().map(r -> r.getBodyAsString()).distinct().count(),
                "the retry repeats the same parameters (out_trade_no), as WeChat asks");
    }

    @Test
    void shouldCallAPersistentSystemErrorOrATimeoutUndefined() {
        server.stubFor(post("/v3/pay/transactions/native").willReturn(systemError()));
        ProviderOutcome<PaymentSession> busy = await(wechat.createPayment(payment()));
        assertEquals(Status.UNDEFINED, busy.status());
        assertEquals("SYSTEMERROR", busy.code());
        assertEquals(3, prepays().size());
        restart();
        server.stubFor(post("/v3/pay/transactions/native").willReturn(okJson("{\"code_url\":\"" + CODE_URL + "\"}")
                .withFixedDelay(1500)));
        assertEquals(Status.UNDEFINED, await(wechat.createPayment(payment())).status());
    }

    @Test
    void shouldNotTrustAnAnswerWhoseSignatureOrTimestampDoesNotVerify() {
        server.stubFor(post("/v3/pay/transactions/native").willReturn(okJson("{\"code_url\":\"" + CODE_URL + "\"}")
                .withHeader("X-Sandbox-Signature", "wrong")));
        ProviderOutcome<PaymentSession> forged = await(wechat.createPayment(payment()));
        assertEquals(Status.UNDEFINED, forged.status());
        assertEquals("response-signature", forged.code());
        restart();
        server.stubFor(post("/v3/pay/transactions/native").willReturn(okJson("{\"code_url\":\"" + CODE_URL + "\"}")
                .withHeader("X-Sandbox-Timestamp", String.valueOf(System.currentTimeMillis() / 1000 - 600))));
        assertEquals(Status.UNDEFINED, await(wechat.createPayment(payment())).status(), "a stale answer");
    }

    @Test
    void shouldNotRetryAFinalNo() {
        server.stubFor(post("/v3/pay/transactions/native").willReturn(error(400, "PARAM_ERROR", "参数错误")));
        ProviderOutcome<PaymentSession> outcome = await(wechat.createPayment(payment()));
        assertEquals(Status.ERROR, outcome.status());
        assertEquals("PARAM_ERROR", outcome.code());
        assertEquals(1, prepays().size());
    }

    @Test
    void shouldReadATransactionByOutTradeNoStrictly() {
        stubTransaction("paid1", transaction("paid1", "4200000001", "SUCCESS", "2500"));
        ProviderOutcome<PaymentState> paid = await(wechat.queryPayment("paid1"));
        assertEquals(Status.PROCESSED, paid.status());
        assertEquals(new PaymentState("paid1", "4200000001", 2500L, "CNY", null), paid.value());
        assertSignedByMerchant(server.findAll(getRequestedFor(urlPathEqualTo(
                "/v3/pay/transactions/out-trade-no/paid1"))).get(0));
        stubTransaction("paid2", transaction("paid2", "4200000002", "SUCCESS", "\"2500\""));
        assertEquals(Status.UNDEFINED, await(wechat.queryPayment("paid2")).status(), "\"2500\" is no amount");
        stubTransaction("open1", transaction("open1", "", "NOTPAY", "2500"));
        assertEquals(Status.PENDING, await(wechat.queryPayment("open1")).status());
        stubTransaction("shut1", transaction("shut1", "", "CLOSED", "2500"));
        assertEquals(Status.ERROR, await(wechat.queryPayment("shut1")).status());
    }

    @Test
    void shouldCloseAnOrderAndReportThatAPaidOneCannotBeClosed() {
        server.stubFor(post("/v3/pay/transactions/out-trade-no/close1/close").willReturn(aResponse().withStatus(204)));
        assertEquals(Status.PROCESSED, await(wechat.cancelPayment("close1")).status());
        server.verify(postRequestedFor(urlEqualTo("/v3/pay/transactions/out-trade-no/close1/close"))
                .withRequestBody(matchingJsonPath("$.mchid", equalTo(MERCHANT_ID))));
        server.stubFor(post("/v3/pay/transactions/out-trade-no/paid3/close").willReturn(error(400, "ORDERPAID",
                "订单已支付")));
        ProviderOutcome<Void> paid = await(wechat.cancelPayment("paid3"));
        assertEquals(Status.ERROR, paid.status());
        assertEquals("ORDERPAID", paid.code());
    }

    @Test
    void shouldRefundATransactionOnceByTheCommandsOutRefundNo() throws Exception {
        RefundRequest request = new RefundRequest(UUID.randomUUID(), "paid4", "4200000004", 2500, "CNY", null);
        server.stubFor(post("/v3/refund/domestic/refunds").willReturn(okJson(refundAnswer(request, "PROCESSING"))));
        ProviderOutcome<RefundState> outcome = await(wechat.createRefund(request));
        assertEquals(Status.PENDING, outcome.status());
        assertEquals("50300000042026", outcome.value().refundId());
        LoggedRequest sent = server.findAll(postRequestedFor(urlEqualTo("/v3/refund/domestic/refunds"))).get(0);
        assertSignedByMerchant(sent);
        JsonNode body = new ObjectMapper().readTree(sent.getBodyAsString());
        assertEquals("4200000004", body.get("transaction_id").asText());
        assertEquals(request.compactCommandId(), body.get("out_refund_no").asText());
        assertEquals(2500, body.path("amount").get("refund").asLong());
        assertEquals(2500, body.path("amount").get("total").asLong());
        assertEquals("CNY", body.path("amount").get("currency").asText());
    }

    @Test
    void shouldFindTheRefundOfACommandOrSayNoneWasMade() {
        RefundRequest made = new RefundRequest(UUID.randomUUID(), "paid5", "4200000005", 2500, "CNY", null);
        server.stubFor(get("/v3/refund/domestic/refunds/" + made.compactCommandId())
                .willReturn(okJson(refundAnswer(made, "SUCCESS"))));
        assertEquals(Status.PROCESSED, await(wechat.queryRefund(made)).status());
        RefundRequest never = new RefundRequest(UUID.randomUUID(), "paid5", "4200000005", 2500, "CNY", null);
        server.stubFor(get("/v3/refund/domestic/refunds/" + never.compactCommandId())
                .willReturn(error(404, "RESOURCE_NOT_EXISTS", "退款单不存在")));
        assertEquals(Status.CANCELED, await(wechat.queryRefund(never)).status(), "no refund: safe to send");
    }

    private void stubTransaction(String outTradeNo, String json) {
        server.stubFor(get(urlPathEqualTo("/v3/pay/transactions/out-trade-no/" + outTradeNo))
                .withQueryParam("mchid", equalTo(MERCHANT_ID)).willReturn(okJson(json)));
    }

    /**
     * Only a refusal of the refund itself is a definite no (issue 43): a signature WeChat refuses, a merchant without
     * the right, a transaction it does not know say nothing about the refund, which stays owed.
     */
    @Test
    void shouldTellARefusalOfTheRefundFromOneThatKeptUsFromAsking() {
        RefundRequest request = new RefundRequest(UUID.randomUUID(), "out-1", "4200000001", 2500, "CNY", null);
        List<Object[]> answers = List.of(new Object[] {401, "SIGN_ERROR", ProviderOutcome.Refusal.CANNOT_ASK},
                new Object[] {403, "NO_AUTH", ProviderOutcome.Refusal.CANNOT_ASK},
                new Object[] {404, "RESOURCE_NOT_EXISTS", ProviderOutcome.Refusal.CANNOT_ASK},
                new Object[] {400, "MCH_NOT_EXISTS", ProviderOutcome.Refusal.CANNOT_ASK},
                new Object[] {400, "INVALID_REQUEST", ProviderOutcome.Refusal.DECLINED},
                new Object[] {403, "NOT_ENOUGH", ProviderOutcome.Refusal.DECLINED},
                new Object[] {403, "USER_ACCOUNT_ABNORMAL", ProviderOutcome.Refusal.DECLINED});
        for (Object[] answer : answers) {
            restart();
            server.stubFor(post("/v3/refund/domestic/refunds").willReturn(error((int) answer[0], (String) answer[1],
                    "refused")));
            ProviderOutcome<RefundState> outcome = await(wechat.createRefund(request));
            assertEquals(Status.ERROR, outcome.status(), answer[1].toString());
            assertEquals(answer[1], outcome.code());
            assertEquals(answer[2], outcome.refusal(), answer[1].toString());
        }
    }

    private static String refundAnswer(RefundRequest request, String status) {
        return "{\"refund_id\":\"50300000042026\",\"out_refund_no\":\"" + request.compactCommandId()
                + "\",\"transaction_id\":\"" + request.captureId() + "\",\"out_trade_no\":\""
                + request.paymentReference() + "\",\"channel\":\"ORIGINAL\",\"user_received_account\":\"招商银行信用卡0403\","
                + "\"create_time\":\"2026-01-15T18:05:00+08:00\",\"status\":\"" + status + "\",\"amount\":{\"total\":"
                + request.amount() + ",\"refund\":" + request.amount() + ",\"payer_total\":" + request.amount()
                + ",\"payer_refund\":" + request.amount() + ",\"settlement_refund\":" + request.amount()
                + ",\"settlement_total\":" + request.amount() + ",\"discount_refund\":0,\"currency\":\"CNY\"}}";
    }

    private static ResponseDefinitionBuilder systemError() {
        return error(500, "SYSTEMERROR", "系统错误");
    }
}
