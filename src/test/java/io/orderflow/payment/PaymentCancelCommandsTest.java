package io.orderflow.payment;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.payment.workers.RefundWorker;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.stripe.StripeProvider;
import io.orderflow.payment.wechatpay.WechatFixtures;
import io.orderflow.support.Auth;
import io.orderflow.support.Sql;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * CANCEL of an order whose payment is pending cancels that payment at its provider (issue 28 item 11): a durable
 * command written with the move, sent once by the worker however often the cancel is repeated or the worker runs,
 * and a provider that says the payment was captured first makes it a capture after a cancel, with its refund owed.
 * Stripe and WeChat Pay are played by WireMock.
 */
@QuarkusTest
@WithTestResource(PaymentSandbox.class)
class PaymentCancelCommandsTest extends SandboxedProviderTest {

    @Inject
    RefundWorker worker;

    @Override
    protected String provider() {
        return StripeProvider.NAME;
    }

    /** An order of {@code customer} paying with Stripe: PaymentIntent {@code intent}, still pending. */
    private String payingWithStripe(String customer, String intent) {
        String id = createOrder(customer);
        server.stubFor(post("/v1/payment_intents").willReturn(okJson(StripeFixtures.intent(intent,
                "requires_payment_method", String.valueOf(AMOUNT), "eur", null))));
        Shoppers.pay(customer, id, "stripe").then().statusCode(200).body("status", is("PAYMENT_PENDING"));
        return id;
    }

    private static Response cancel(String customer, String orderId, String key) {
        return Auth.customer(customer).contentType(ContentType.JSON).header("Idempotency-Key", key).body(Map.of())
                .post("/orders/" + orderId + "/cancel");
    }

    private void runWorker(String orderId) {
        SandboxCalls.runWorker(worker, orderId);
    }

    private static String cancelState(String orderId) {
        return Sql.string("select state from provider_commands where kind = 'CANCEL' and order_id = ?",
                UUID.fromString(orderId));
    }

    @Test
    void shouldCancelAPendingPaymentIntentOnceHoweverOftenTheCancelIsSentOrTheWorkerRuns() {
        String customer = newCustomer();
        String intent = "pi_cancel_" + UUID.randomUUID().toString().substring(0, 8);
        String id = payingWithStripe(customer, intent);
        server.stubFor(post("/v1/payment_intents/" + intent + "/cancel").willReturn(okJson(StripeFixtures.intent(
                intent, "canceled", String.valueOf(AMOUNT), "eur", null))));
        String key = newKey();

        cancel(customer, id, key).then().statusCode(200).body("status", is("CANCELLED"));
        cancel(customer, id, key).then().statusCode(200).header("Idempotent-Replayed", "true");
        cancel(customer, id, newKey()).then().statusCode(200).body("status", is("CANCELLED"));
        runWorker(id);
        runWorker(id);
        cancel(customer, id, newKey()).then().statusCode(200);
        runWorker(id);

        server.verify(1, postRequestedFor(urlEqualTo("/v1/payment_intents/" + intent + "/cancel")));
        assertEquals(1, Sql.count("select count(*) from provider_commands where kind = 'CANCEL' and order_id = ?",
                UUID.fromString(id)));
        assertEquals("DONE", cancelState(id));
        assertEquals("CANCELLED", Sql.string("select state from payment_attempts where order_id = ?",
                UUID.fromString(id)), "a cancelled attempt is no longer asked about by the reconciler");
    }

    @Test
    void shouldOweARefundWhenStripeSaysThePaymentIntentSucceededBeforeTheCancelArrived() {
        String customer = newCustomer();
        String intent = "pi_late_" + UUID.randomUUID().toString().substring(0, 8);
        String charge = "ch_late_" + intent.substring(8);
        String id = payingWithStripe(customer, intent);
        server.stubFor(post("/v1/payment_intents/" + intent + "/cancel").willReturn(StripeFixtures.error(400,
                "invalid_request_error", "payment_intent_unexpected_state")));
        server.stubFor(get(urlPathEqualTo("/v1/payment_intents/" + intent)).willReturn(okJson(StripeFixtures.intent(
                intent, "succeeded", String.valueOf(AMOUNT), "eur", charge))));
        server.stubFor(post("/v1/refunds").willReturn(okJson(StripeFixtures.refund("re_late_" + intent.substring(8),
                charge, intent, String.valueOf(AMOUNT), "pending", "(set by the request)"))));
        cancel(customer, id, newKey()).then().statusCode(200).body("status", is("CANCELLED"));

        runWorker(id);
        runWorker(id);

        server.verify(1, postRequestedFor(urlEqualTo("/v1/payment_intents/" + intent + "/cancel")));
        server.verify(1, postRequestedFor(urlEqualTo("/v1/refunds")).withRequestBody(containing("charge=" + charge)));
        Auth.operator().get("/orders/" + id).then().body("status", is("REFUND_PENDING"))
                .body("payment.providerTxnId", is(charge));
        assertEquals(1, Sql.count("select count(*) from refunds where order_id = ? and capture_txn_id = ?"
                + " and amount = ? and status = 'PENDING'", UUID.fromString(id), charge, AMOUNT),
                "the capture's refund is owed, and sent");
        assertEquals(1, Sql.count("select count(*) from provider_commands where kind = 'REFUND' and order_id = ?",
                UUID.fromString(id)));
        assertEquals("DONE", cancelState(id));
    }

    @Test
    void shouldCloseAPendingWechatPayOrderOnceWhenItsOrderIsCancelled() {
        breakers.reset("wechatpay");
        String customer = newCustomer();
        String id = Shoppers.yuanOrder(customer);
        server.stubFor(post("/v3/pay/transactions/native")
                .willReturn(okJson("{\"code_url\":\"weixin://wxpay/bizpayurl?pr=cancel\"}")));
        String outTradeNo = Shoppers.payWithWechat(customer, id);
        server.stubFor(post(urlPathMatching("/v3/pay/transactions/out-trade-no/.*/close"))
                .willReturn(aResponse().withStatus(204)));

        cancel(customer, id, newKey()).then().statusCode(200).body("status", is("CANCELLED"));
        runWorker(id);
        runWorker(id);

        server.verify(1, postRequestedFor(urlEqualTo("/v3/pay/transactions/out-trade-no/" + outTradeNo + "/close"))
                .withRequestBody(matchingJsonPath("$.mchid", equalTo(WechatFixtures.MERCHANT_ID))));
        assertEquals("DONE", cancelState(id));
    }

    @Test
    void shouldOweNoCancelForAnOrderCancelledBeforeItsPaymentStarted() {
        String customer = newCustomer();
        String id = createOrder(customer);

        cancel(customer, id, newKey()).then().statusCode(200).body("status", is("CANCELLED"));

        assertEquals(0, Sql.count("select count(*) from provider_commands where order_id = ?", UUID.fromString(id)));
    }
}
