package io.orderflow.payment;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.client.MappingBuilder;
import io.orderflow.payment.reconcile.Reconciler;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.stripe.StripeProvider;
import io.orderflow.payment.wechatpay.WechatFixtures;
import io.orderflow.payment.wechatpay.WechatPayProvider;
import io.orderflow.support.Auth;
import io.orderflow.support.Management;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The janitor asks Stripe (WireMock) about attempts pending too long and applies the answer through the callbacks'
 * path: a lost webhook still pays the order, and a reconciliation racing the webhook yields one transition.
 */
@QuarkusTest
@WithTestResource(PaymentSandbox.class)
class ReconciliationTest extends SandboxedProviderTest {

    @Inject
    Reconciler reconciler;

    @Override
    protected String provider() {
        return StripeProvider.NAME;
    }

    /** An order paying through Stripe with PaymentIntent {@code intent}, its attempt pending for {@code minutes}. */
    private String pendingWithStripe(String intent, int minutes) {
        String id = Janitor.payingWithStripe(server, intent);
        stale(id, minutes);
        return id;
    }

    private void stripeSays(String intent, String status, String charge) {
        Janitor.stripeSays(server, intent, status, charge);
    }

    private List<String> reconcile() {
        return Janitor.run(reconciler);
    }

    private static void stale(String orderId, int minutes) {
        Sql.update("update payment_attempts set updated_at = now() - make_interval(mins => ?) where order_id = ?",
                minutes, UUID.fromString(orderId));
    }

    private static String status(String orderId) {
        return Sql.string("select status from orders where id = ?", UUID.fromString(orderId));
    }

    private static void assertConsistent(String... orderIds) {
        assertEquals(List.of(), Sql.violations(List.of(orderIds)));
    }

    /** A CNY order paying through WeChat Pay Native, its attempt pending for {@code minutes}; its out_trade_no. */
    private String pendingWithWechat(String customer, int minutes) {
        breakers.reset(WechatPayProvider.NAME);
        String id = Shoppers.yuanOrder(customer);
        server.stubFor(post("/v3/pay/transactions/native")
                .willReturn(okJson("{\"code_url\":\"weixin://wxpay/bizpayurl?pr=reconcile\"}")));
        String outTradeNo = Shoppers.payWithWechat(customer, id);
        stale(id, minutes);
        return outTradeNo;
    }

    private static MappingBuilder wechatQuery(String outTradeNo) {
        return get(urlPathEqualTo("/v3/pay/transactions/out-trade-no/" + outTradeNo))
                .withQueryParam("mchid", equalTo(WechatFixtures.MERCHANT_ID));
    }

    private static String orderOfAttempt(String outTradeNo) {
        return Sql.string("select cast(order_id as text) from payment_attempts where replace(cast(id as text), '-', '')"
                + " = ?", outTradeNo);
    }

    @Test
    void shouldPayAnOrderWhoseWebhookNeverCameWithWhatStripeSaysAboutItsIntent() {
        String intent = "pi_lost_" + UUID.randomUUID().toString().substring(0, 8);
        String id = pendingWithStripe(intent, 20);
        stripeSays(intent, "succeeded", "ch_" + intent);

        reconcile();

        Auth.operator().get("/orders/" + id).then().body("status", is("PAID"), "payment.providerTxnId",
                is("ch_" + intent));
        assertEquals("CAPTURED", Sql.string("select state from payment_attempts where order_id = ?",
                UUID.fromString(id)));
        Auth.operator().get("/orders/" + id + "/transitions").then()
                .body("find { it.event == 'PAYMENT_SUCCEEDED' }.source", is("stripe"))
                .body("find { it.event == 'PAYMENT_SUCCEEDED' }.actor", is("reconciler"));
        reconcile();
        server.verify(1, getRequestedFor(urlPathEqualTo("/v1/payment_intents/" + intent)));
        assertConsistent(id);
    }

    @Test
    void shouldCloseARefundWhoseNotificationNeverCameWithWhatStripeSaysAboutIt() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String intent = "pi_refund_lost_" + suffix;
        String charge = "ch_" + intent;
        String id = pendingWithStripe(intent, 0);
        String paid = StripeFixtures.event("payment_intent.succeeded", StripeFixtures.intent(intent, "succeeded",
                String.valueOf(AMOUNT), "eur", charge));
        given().contentType("application/json; charset=utf-8").header("Stripe-Signature", StripeFixtures.signature(
                StripeFixtures.SECRET, Instant.now().getEpochSecond(), paid)).body(paid.getBytes(StandardCharsets.UTF_8))
                .post("/payments/stripe/callbacks").then().statusCode(200);
        post(id, "cancel", Map.of()).then().statusCode(200).body("status", is("REFUND_PENDING"));
        String command = Sql.string("select cast(id as text) from provider_commands where order_id = ?",
                UUID.fromString(id));
        // the worker sent the refund 20 minutes ago; Stripe's charge.refunded never arrived
        Sql.update("update provider_commands set state = 'DONE', refund_id = ?, updated_at = now() - interval"
                + " '20 minutes' where id = ?", "re_" + suffix, UUID.fromString(command));
        server.stubFor(get(urlPathEqualTo("/v1/refunds/re_" + suffix)).willReturn(okJson(StripeFixtures.refund(
                "re_" + suffix, charge, intent, String.valueOf(AMOUNT), "succeeded", command))));

        reconcile();

        Auth.operator().get("/orders/" + id).then().body("status", is("REFUNDED"));
        assertEquals("REFUNDED", Sql.string("select state from payment_captures where txn_id = ?", charge));
        assertEquals(1, Sql.historyCount(id, "REFUND_SUCCEEDED"));
        assertEquals("reconciler", Sql.string("select actor from order_transitions where order_id = ? and event ="
                + " 'REFUND_SUCCEEDED'", UUID.fromString(id)));
        assertEquals("stripe", Sql.string("select actor from order_transitions where order_id = ? and event ="
                + " 'PAYMENT_SUCCEEDED'", UUID.fromString(id)), "the webhook's move is the provider's");
        reconcile();
        server.verify(1, getRequestedFor(urlPathEqualTo("/v1/refunds/re_" + suffix)));
        assertConsistent(id);
    }

    static Stream<Arguments> declinedStripeQueries() {
        return Stream.of(
                Arguments.of(401, "invalid_request_error", null),
                Arguments.of(404, "invalid_request_error", "resource_missing"),
                Arguments.of(403, "invalid_request_error", "secret_key_required"));
    }

    @ParameterizedTest
    @MethodSource("declinedStripeQueries")
    void shouldLeaveAnOrderPendingAndAskAgainLaterWhenStripeRefusesTheQueryItself(int status, String type,
            String code) {
        String intent = "pi_refused_" + UUID.randomUUID().toString().substring(0, 8);
        String id = pendingWithStripe(intent, 20);
        // a revoked or mistyped API key, an intent of another account: nothing about the payment itself
        server.stubFor(get(urlPathEqualTo("/v1/payment_intents/" + intent)).willReturn(StripeFixtures.error(status,
                type, code)));

        reconcile();

        assertEquals("PAYMENT_PENDING", status(id));
        assertEquals("PENDING", Sql.string("select state from payment_attempts where order_id = ?",
                UUID.fromString(id)));
        assertEquals(0, Sql.historyCount(id, "PAYMENT_FAILED"));
        Management.given().get("/q/metrics").then().body(Matchers.containsString(
                "orderflow_payments_reconciliation_total{outcome=\"query-declined\",provider=\"stripe\"}"));
        // the key is fixed; the next look, past the threshold again, settles the payment
        stripeSays(intent, "succeeded", "ch_" + intent);
        stale(id, 20);
        reconcile();
        assertEquals("PAID", status(id));
        assertConsistent(id);
    }

    @Test
    void shouldPayAWechatOrderWhoseNotificationNeverCameWithWhatWechatSaysAboutItsOutTradeNo() {
        String outTradeNo = pendingWithWechat(newCustomer(), 20);
        String id = orderOfAttempt(outTradeNo);
        String transaction = "42" + outTradeNo.substring(0, 20);
        server.stubFor(wechatQuery(outTradeNo).willReturn(okJson(WechatFixtures.transaction(outTradeNo, transaction,
                "SUCCESS", "2500"))));

        reconcile();

        Auth.operator().get("/orders/" + id).then().body("status", is("PAID"), "payment.providerTxnId",
                is(transaction));
        Auth.operator().get("/orders/" + id + "/transitions").then()
                .body("find { it.event == 'PAYMENT_SUCCEEDED' }.source", is("wechatpay"));
        assertEquals("CAPTURED", Sql.string("select state from payment_attempts where order_id = ?",
                UUID.fromString(id)));
        server.findAll(getRequestedFor(urlPathMatching("/v3/pay/transactions/out-trade-no/.*")))
                .forEach(sandbox.wechat()::assertSignedByMerchant);
        reconcile();
        server.verify(1, getRequestedFor(urlPathEqualTo("/v3/pay/transactions/out-trade-no/" + outTradeNo)));
        assertConsistent(id);
    }

    @Test
    void shouldYieldOneTransitionWhenAWechatReconciliationAndItsNotificationArriveTogether() {
        String outTradeNo = pendingWithWechat(newCustomer(), 20);
        String id = orderOfAttempt(outTradeNo);
        String transaction = "42" + outTradeNo.substring(0, 20);
        String paid = WechatFixtures.transaction(outTradeNo, transaction, "SUCCESS", "2500");
        server.stubFor(wechatQuery(outTradeNo).willReturn(okJson(paid)));
        String notification = sandbox.wechat().notification("EV-" + outTradeNo, "TRANSACTION.SUCCESS",
                "transaction", paid);

        List<Integer> answers = Parallel.run(2, i -> i == 0 ? given().contentType("application/json")
                .headers(sandbox.wechat().headers(notification, Instant.now().getEpochSecond()))
                .body(notification.getBytes(StandardCharsets.UTF_8)).post("/payments/wechatpay/callbacks").statusCode()
                : reconcile().size() >= 0 ? 204 : 500);

        assertEquals(List.of(204, 204), answers);
        assertEquals(1, Sql.historyCount(id, "PAYMENT_SUCCEEDED"));
        assertEquals("PAID", status(id));
        assertEquals(1, Sql.count("select count(*) from payment_captures where order_id = ?", UUID.fromString(id)));
        assertConsistent(id);
    }

    @Test
    void shouldLeaveAWechatOrderPendingWhenWechatRefusesTheQueryWithSignError() {
        String outTradeNo = pendingWithWechat(newCustomer(), 20);
        String id = orderOfAttempt(outTradeNo);
        server.stubFor(wechatQuery(outTradeNo).willReturn(WechatFixtures.error(401, "SIGN_ERROR", "签名错误")));

        reconcile();

        assertEquals("PAYMENT_PENDING", status(id));
        assertEquals(0, Sql.historyCount(id, "PAYMENT_FAILED"));
        assertConsistent(id);
    }

    @Test
    void shouldAcknowledgeALateCloseOfAReplacedWechatAttemptAndLeaveTheOrderAsItIs() {
        String customer = newCustomer();
        String outTradeNo = pendingWithWechat(customer, 20);
        String id = orderOfAttempt(outTradeNo);
        // WeChat answers the janitor's question slowly: meanwhile the shopper switches to Stripe
        server.stubFor(wechatQuery(outTradeNo).willReturn(okJson(WechatFixtures.transaction(outTradeNo, "",
                "CLOSED", "2500")).withFixedDelay(600)));
        server.stubFor(post(urlPathMatching("/v3/pay/transactions/out-trade-no/.*/close"))
                .willReturn(aResponse().withStatus(204)));
        CompletableFuture<List<String>> asking = CompletableFuture
                .supplyAsync(this::reconcile);
        sandbox.awaitRequests(getRequestedFor(urlPathEqualTo("/v3/pay/transactions/out-trade-no/" + outTradeNo)), 1);
        server.stubFor(post("/v1/payment_intents").willReturn(okJson(StripeFixtures.intent("pi_after_wx_"
                + outTradeNo.substring(0, 8), "requires_payment_method", "2500", "cny", null))));
        String current = Shoppers.pay(customer, id, "stripe").then().statusCode(200).extract()
                .path("payment.attemptId");

        List<String> outcomes = asking.join();

        assertTrue(outcomes.contains(outTradeNo + " 204 stale-attempt"), outcomes.toString());
        assertEquals("PAYMENT_PENDING", status(id));
        assertEquals(current, Sql.string("select cast(payment_attempt_id as text) from orders where id = ?",
                UUID.fromString(id)));
        assertEquals("FAILED", Sql.string("select state from payment_attempts where replace(cast(id as text), '-',"
                + " '') = ?", outTradeNo));
        assertEquals(0, Sql.historyCount(id, "PAYMENT_FAILED"));
        assertConsistent(id);
    }

    @Test
    void shouldNotAskAboutAnAttemptPendingForLessThanTheThreshold() {
        String intent = "pi_fresh_" + UUID.randomUUID().toString().substring(0, 8);
        String id = pendingWithStripe(intent, 1);
        stripeSays(intent, "succeeded", "ch_" + intent);

        reconcile();

        server.verify(0, getRequestedFor(urlPathEqualTo("/v1/payment_intents/" + intent)));
        Auth.operator().get("/orders/" + id).then().body("status", is("PAYMENT_PENDING"));
    }

    @Test
    void shouldYieldOneTransitionWhenAReconciliationAndTheWebhookArriveTogether() {
        String intent = "pi_race_" + UUID.randomUUID().toString().substring(0, 8);
        String id = pendingWithStripe(intent, 20);
        stripeSays(intent, "succeeded", "ch_" + intent);
        String webhook = StripeFixtures.event("payment_intent.succeeded", StripeFixtures.intent(intent, "succeeded",
                String.valueOf(AMOUNT), "eur", "ch_" + intent));

        List<Integer> answers = Parallel.run(2, i -> i == 0 ? given().contentType("application/json; charset=utf-8")
                .header("Stripe-Signature", StripeFixtures.signature(StripeFixtures.SECRET,
                        Instant.now().getEpochSecond(), webhook))
                .body(webhook.getBytes(StandardCharsets.UTF_8)).post("/payments/stripe/callbacks").statusCode()
                : reconcile().size() >= 0 ? 200 : 500);

        assertTrue(answers.stream().allMatch(status -> status == 200), answers.toString());
        assertEquals(1, Sql.historyCount(id, "PAYMENT_SUCCEEDED"));
        assertEquals("PAID", Sql.string("select status from orders where id = ?", UUID.fromString(id)));
        assertEquals(1, Sql.count("select count(*) from payment_captures where order_id = ?", UUID.fromString(id)));
        assertConsistent(id);
    }
}
