package io.orderflow.payment;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static io.orderflow.support.Callbacks.deliver;
import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.github.tomakehurst.wiremock.client.WireMock;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.wechatpay.WechatFixtures;
import io.orderflow.support.Auth;
import io.orderflow.support.Meters;
import io.orderflow.support.Sql;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.util.logging.Level;
import io.orderflow.support.CapturedLog;
import io.orderflow.payment.workers.RefundWorker;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Payment attempts over real HTTP, PostgreSQL and Redis, with Stripe and WeChat Pay played by WireMock: every PAY
 * starts an attempt in the statement that moves the order, provider events are matched to an attempt, and what an
 * event about another attempt or another capture may do to the order is decided by that match.
 */
@QuarkusTest
@WithTestResource(PaymentSandbox.class)
class PaymentAttemptsTest extends SandboxedProviderTest {

    private static final String TYPES = "https://orderflow.dev/problems/";

    @Inject
    MeterRegistry registry;

    @Inject
    RefundWorker worker;

    /** The worker's pass over the order's commands: the cancels a PAY's statement owes are sent by it. */
    private void runWorker(String orderId) {
        SandboxCalls.runWorker(worker, orderId);
    }

    @Override
    protected String provider() {
        return "stripe";
    }

    // --- helpers -------------------------------------------------------------------------------------------------

    private static Response pay(String orderId, String provider) {
        return postKeyed(orderId, "pay", Map.of("provider", provider), newKey());
    }

    private static String attemptOf(Response payResponse) {
        return payResponse.then().statusCode(200).extract().path("payment.attemptId");
    }

    private static String mockpay(String type, String orderId, String attemptId, String txnId) {
        String eventId = UUID.randomUUID().toString();
        return "{\"eventId\":\"" + eventId + "\",\"type\":\"" + type + "\",\"orderId\":\"" + orderId + "\""
                + (attemptId == null ? "" : ",\"attemptId\":\"" + attemptId + "\"") + ",\"amount\":" + AMOUNT
                + ",\"currency\":\"EUR\",\"providerTxnId\":\"" + txnId + "\",\"occurredAt\":\"" + Instant.now()
                + "\"}";
    }

    private static String txn() {
        return "txn-" + UUID.randomUUID();
    }

    private static String status(String orderId) {
        return Auth.operator().get("/orders/" + orderId).then().statusCode(200).extract().path("status");
    }

    private static String attemptState(String attemptId) {
        return Sql.string("select state from payment_attempts where id = ?", UUID.fromString(attemptId));
    }

    private static String currentAttempt(String orderId) {
        return Sql.string("select cast(payment_attempt_id as text) from orders where id = ?", UUID.fromString(orderId));
    }

    private static long anomalies(String orderId, String kind) {
        return Sql.count("select count(*) from payment_anomalies where order_id = ? and kind = ?",
                UUID.fromString(orderId), kind);
    }

    private void stubStripeIntent(String intentId) {
        sandbox.server().stubFor(post("/v1/payment_intents").willReturn(okJson(StripeFixtures.intent(intentId,
                "requires_payment_method", String.valueOf(AMOUNT), "eur", null))));
    }

    private static Response stripe(String payload) {
        return given().contentType("application/json; charset=utf-8")
                .header("Stripe-Signature", StripeFixtures.signature(StripeFixtures.SECRET,
                        Instant.now().getEpochSecond(), payload))
                .body(payload.getBytes(StandardCharsets.UTF_8)).post("/payments/stripe/callbacks");
    }

    private static void assertConsistent(String... orderIds) {
        assertEquals(List.of(), Sql.violations(List.of(orderIds)));
    }

    private void stubWechatPrepay(String codeUrl) {
        sandbox.server().stubFor(post("/v3/pay/transactions/native").willReturn(okJson("{\"code_url\":\"" + codeUrl
                + "\"}")));
    }

    private void stubWechatClose() {
        sandbox.server().stubFor(post(urlPathMatching("/v3/pay/transactions/out-trade-no/.*/close"))
                .willReturn(aResponse().withStatus(204)));
    }

    // --- attempts ------------------------------------------------------------------------------------------------

    @Test
    void shouldStartAnAttemptWithPayInTheSameStatementAndMakeItTheOrdersCurrentOne() {
        String id = createOrder();
        String attempt = attemptOf(pay(id, "mockpay").then().body("status", is("PAYMENT_PENDING"),
                "payment.provider", is("mockpay")).extract().response());
        assertEquals("PENDING", attemptState(attempt));
        assertEquals(attempt, currentAttempt(id));
        assertEquals(AMOUNT, Sql.count("select amount from payment_attempts where id = ? and order_id = ?",
                UUID.fromString(attempt), UUID.fromString(id)));
    }

    @Test
    void shouldStartANewAttemptWhenTheShopperPaysAgainAfterAFailure() {
        String id = createOrder();
        String first = attemptOf(pay(id, "mockpay"));
        deliver(mockpay("PAYMENT_FAILED", id, null, txn())).then().statusCode(200).body("status", is("CREATED"));
        String second = attemptOf(pay(id, "mockpay"));
        assertEquals("FAILED", attemptState(first));
        assertEquals("PENDING", attemptState(second));
        assertEquals(second, currentAttempt(id));
    }

    @Test
    void shouldNotLetALateFailureOfASupersededAttemptMoveTheOrder() {
        String id = createOrder();
        String first = attemptOf(pay(id, "mockpay"));
        deliver(mockpay("PAYMENT_FAILED", id, first, txn())).then().statusCode(200).body("status", is("CREATED"));
        String second = attemptOf(pay(id, "mockpay"));
        double staleBefore = staleAttemptAnswers();
        // attempt 1 fails again (a second failure event of the old attempt), while the order pays with attempt 2
        deliver(mockpay("PAYMENT_FAILED", id, first, txn())).then().statusCode(200)
                .body("outcome", is("stale-attempt"), "status", is("PAYMENT_PENDING"));
        assertEquals(1, staleAttemptAnswers() - staleBefore, "one stale-attempt answer is counted once");
        assertEquals("PAYMENT_PENDING", status(id));
        assertEquals(second, currentAttempt(id));
        assertEquals(1, Sql.historyCount(id, "PAYMENT_FAILED"));
    }

    @Test
    void shouldTreatPayWithTheSameProviderWhilePendingAsADuplicateThatStartsNothing() {
        String id = createOrder();
        String first = attemptOf(pay(id, "mockpay"));
        pay(id, "mockpay").then().statusCode(200).body("status", is("PAYMENT_PENDING"));
        assertEquals(1, Sql.count("select count(*) from payment_attempts where order_id = ?", UUID.fromString(id)));
        assertEquals(first, currentAttempt(id));
        assertEquals(1, Sql.historyCount(id, "PAY"));
    }

    @Test
    void shouldReplaceThePendingAttemptWhenTheShopperSwitchesProviderAndCancelItAtItsProvider() {
        String id = createOrder();
        stubStripeIntent("pi_switch_" + id.substring(0, 8));
        String first = attemptOf(pay(id, "stripe"));
        sandbox.server().stubFor(post(urlPathMatching("/v1/payment_intents/.*/cancel"))
                .willReturn(okJson(StripeFixtures.intent("pi_switch_" + id.substring(0, 8), "canceled",
                        String.valueOf(AMOUNT), "eur", null))));
        String second = attemptOf(pay(id, "mockpay").then().body("status", is("PAYMENT_PENDING")).extract()
                .response());
        runWorker(id);
        assertEquals("REPLACED", attemptState(first));
        assertEquals("PENDING", attemptState(second));
        assertEquals(second, currentAttempt(id));
        assertEquals(2, Sql.historyCount(id, "PAY"));
        sandbox.server().verify(1, postRequestedFor(urlEqualTo("/v1/payment_intents/pi_switch_" + id.substring(0, 8)
                + "/cancel")));
        Auth.operator().get("/orders/" + id + "/transitions").then()
                .body("findAll { it.event == 'PAY' }.to", everyItem(is("PAYMENT_PENDING")));
    }

    /**
     * The cancel of a replaced attempt is a durable command the PAY's own statement writes, retried until the provider
     * closes the payment: no crash after the PAY's commit leaves the old payment payable, and a failed cancel is
     * logged, not swallowed (issue 43, item 3).
     */
    @Test
    void shouldOweTheCancelOfAReplacedAttemptAsACommandOfThePaysStatementAndRetryItUntilStripeClosesIt() {
        String id = createOrder();
        String intent = "pi_owed_" + id.substring(0, 8);
        stubStripeIntent(intent);
        String first = attemptOf(pay(id, "stripe"));
        sandbox.server().stubFor(post(urlEqualTo("/v1/payment_intents/" + intent + "/cancel"))
                .willReturn(StripeFixtures.error(503, "api_error", null)));

        attemptOf(pay(id, "mockpay"));

        assertEquals(1, Sql.count("select count(*) from provider_commands where order_id = ? and kind = 'CANCEL'"
                + " and payment_reference = ? and state = 'PENDING'", UUID.fromString(id), intent),
                "owed by the PAY's statement, before anything is sent");
        try (CapturedLog log = CapturedLog.start()) {
            runWorker(id);
            assertEquals(1, log.atLeast(Level.WARNING).stream().filter(line -> line.contains(intent)
                    && line.contains(id)).count(), log.atLeast(Level.WARNING).toString());
        }
        assertEquals("SENT", Sql.string("select state from provider_commands where order_id = ? and kind = 'CANCEL'",
                UUID.fromString(id)), "Stripe did not answer: owed still");
        sandbox.server().stubFor(post(urlEqualTo("/v1/payment_intents/" + intent + "/cancel")).willReturn(okJson(
                StripeFixtures.intent(intent, "canceled", String.valueOf(AMOUNT), "eur", null))));
        Sql.update("update provider_commands set next_at = now() - interval '1 second' where order_id = ?",
                UUID.fromString(id));
        runWorker(id);

        assertEquals("DONE", Sql.string("select state from provider_commands where order_id = ? and kind = 'CANCEL'",
                UUID.fromString(id)));
        assertEquals("REPLACED", attemptState(first));
        assertConsistent(id);
    }

    @Test
    void shouldNotLetAFailureOfAReplacedAttemptMoveTheOrder() {
        String id = createOrder();
        String first = attemptOf(pay(id, "mockpay"));
        stubStripeIntent("pi_repl_" + id.substring(0, 8));
        String second = attemptOf(pay(id, "stripe"));
        deliver(mockpay("PAYMENT_FAILED", id, first, txn())).then().statusCode(200)
                .body("outcome", is("stale-attempt"));
        assertEquals("PAYMENT_PENDING", status(id));
        assertEquals(second, currentAttempt(id));
        assertEquals("FAILED", attemptState(first));
    }

    @Test
    void shouldPayTheOrderWithASuccessOfAReplacedAttempt() {
        String id = createOrder();
        String first = attemptOf(pay(id, "mockpay"));
        stubStripeIntent("pi_late_" + id.substring(0, 8));
        attemptOf(pay(id, "stripe"));
        String capture = txn();
        deliver(mockpay("PAYMENT_SUCCEEDED", id, first, capture)).then().statusCode(200)
                .body("outcome", is("applied"), "status", is("PAID"));
        assertEquals(first, currentAttempt(id), "the attempt that paid is the order's");
        assertEquals("CAPTURED", attemptState(first));
        assertEquals(first, Sql.string("select cast(attempt_id as text) from payment_captures where txn_id = ?",
                capture));
    }

    @Test
    void shouldRecordADoubleCaptureWithARefundOwedWhenAnotherAttemptCapturesAPaidOrder() {
        String id = createOrder();
        String first = attemptOf(pay(id, "mockpay"));
        stubStripeIntent("pi_dbl_" + id.substring(0, 8));
        String second = attemptOf(pay(id, "stripe"));
        deliver(mockpay("PAYMENT_SUCCEEDED", id, second, txn())).then().statusCode(200).body("status", is("PAID"));
        String again = txn();
        deliver(mockpay("PAYMENT_SUCCEEDED", id, first, again)).then().statusCode(200)
                .body("outcome", is("double-capture"), "status", is("PAID"));
        assertEquals("REFUND_OWED", Sql.string("select state from payment_captures where txn_id = ?", again));
        assertEquals(1, anomalies(id, "double-capture"));
        assertEquals(1, Sql.historyCount(id, "PAYMENT_SUCCEEDED"));
    }

    @Test
    void shouldRefuseATransactionIdThatAlreadyPaidAnotherOrderAndRecordIt() {
        String paid = createOrder();
        pay(paid, "mockpay").then().statusCode(200);
        String capture = txn();
        deliver(mockpay("PAYMENT_SUCCEEDED", paid, null, capture)).then().statusCode(200).body("status", is("PAID"));
        String other = createOrder();
        pay(other, "mockpay").then().statusCode(200);
        deliver(mockpay("PAYMENT_SUCCEEDED", other, null, capture)).then().statusCode(200)
                .body("outcome", is("txn-reused"), "status", is("PAYMENT_PENDING"));
        assertEquals("PAYMENT_PENDING", status(other));
        assertEquals(1, anomalies(other, "txn-reused"));
        assertEquals(1, Sql.count("select count(*) from payment_captures where txn_id = ?", capture));
    }

    @Test
    void shouldMatchARefundToItsCaptureSoADoubleCapturesRefundNeverClosesTheOrdersOwn() {
        String id = createOrder();
        String first = attemptOf(pay(id, "mockpay"));
        stubStripeIntent("pi_rf_" + id.substring(0, 8));
        String second = attemptOf(pay(id, "stripe"));
        String own = txn();
        String extra = txn();
        deliver(mockpay("PAYMENT_SUCCEEDED", id, second, own)).then().statusCode(200);
        deliver(mockpay("PAYMENT_SUCCEEDED", id, first, extra)).then().statusCode(200)
                .body("outcome", is("double-capture"));
        post(id, "cancel", Map.of()).then().statusCode(200).body("status", is("REFUND_PENDING"));
        deliver(mockpay("REFUND_SUCCEEDED", id, null, extra)).then().statusCode(200)
                .body("outcome", is("other-capture"), "status", is("REFUND_PENDING"));
        assertEquals("REFUNDED", Sql.string("select state from payment_captures where txn_id = ?", extra));
        assertEquals("REFUND_PENDING", status(id));
        deliver(mockpay("REFUND_SUCCEEDED", id, null, own)).then().statusCode(200).body("status", is("REFUNDED"));
        assertEquals("REFUNDED", Sql.string("select state from payment_captures where txn_id = ?", own));
    }

    @Test
    void shouldRefusePayWithAProviderThisDeploymentDoesNotOffer() {
        String id = createOrder();
        pay(id, "paypal").then().statusCode(400).contentType("application/problem+json")
                .body("type", is(TYPES + "payment-provider-unknown"));
        assertEquals("CREATED", status(id));
        assertEquals(0, Sql.count("select count(*) from payment_attempts where order_id = ?", UUID.fromString(id)));
    }

    // --- payments left behind -------------------------------------------------------------------------------------

    @Test
    void shouldCancelAtStripeAPaymentIntentLeftBehindByAPayThatLostToAConcurrentCancel() {
        String customer = newCustomer();
        String id = createOrder(customer);
        String intent = "pi_lost_cas_" + id.substring(0, 8);
        // Stripe is slow to create the intent: the shopper cancels the order meanwhile
        sandbox.server().stubFor(post("/v1/payment_intents").willReturn(okJson(StripeFixtures.intent(intent,
                "requires_payment_method", String.valueOf(AMOUNT), "eur", null)).withFixedDelay(600)));
        sandbox.server().stubFor(post(urlEqualTo("/v1/payment_intents/" + intent + "/cancel")).willReturn(okJson(
                StripeFixtures.intent(intent, "canceled", String.valueOf(AMOUNT), "eur", null))));
        CompletableFuture<Response> paying = CompletableFuture
                .supplyAsync(() -> Shoppers.pay(customer, id, "stripe"));
        sandbox.awaitRequests(postRequestedFor(urlEqualTo("/v1/payment_intents")), 1);
        Auth.customer(customer).contentType(ContentType.JSON).body(Map.of()).post("/orders/" + id + "/cancel").then()
                .statusCode(200).body("status", is("CANCELLED"));

        paying.join().then().statusCode(409).body("type", is(TYPES + "illegal-transition"));
        runWorker(id);

        sandbox.server().verify(1, postRequestedFor(urlEqualTo("/v1/payment_intents/" + intent + "/cancel")));
        assertEquals(0, Sql.count("select count(*) from payment_attempts where order_id = ?", UUID.fromString(id)));
        assertConsistent(id);
    }

    @Test
    void shouldCloseTheWechatNativeOrderWhenTheShopperSwitchesToStripe() {
        String customer = newCustomer();
        String id = Shoppers.yuanOrder(customer);
        stubWechatPrepay("weixin://wxpay/bizpayurl?pr=switch");
        stubWechatClose();
        String wechatAttempt = attemptOf(Shoppers.pay(customer, id, "wechatpay"));
        String outTradeNo = wechatAttempt.replace("-", "");
        stubStripeIntent("pi_from_wx_" + id.substring(0, 8));

        String stripeAttempt = attemptOf(Shoppers.pay(customer, id, "stripe"));
        runWorker(id);

        var close = postRequestedFor(urlEqualTo("/v3/pay/transactions/out-trade-no/" + outTradeNo + "/close"))
                .withRequestBody(matchingJsonPath("$.mchid", equalTo(WechatFixtures.MERCHANT_ID)));
        sandbox.server().verify(1, close);
        sandbox.wechat().assertSignedByMerchant(sandbox.server().findAll(close).get(0));
        assertEquals("REPLACED", attemptState(wechatAttempt));
        assertEquals(stripeAttempt, currentAttempt(id));
        assertConsistent(id);
    }

    @Test
    void shouldCancelTheAttemptItsOwnStatementReplacedWhenAnotherPayReplacedTheOneItReadFirst() {
        String customer = newCustomer();
        String id = Shoppers.yuanOrder(customer);
        attemptOf(Shoppers.pay(customer, id, "mockpay"));
        String intent = "pi_slow_switch_" + id.substring(0, 8);
        // the PAY to Stripe reads the order (current attempt: mockpay's), then waits for Stripe...
        sandbox.server().stubFor(post("/v1/payment_intents").willReturn(okJson(StripeFixtures.intent(intent,
                "requires_payment_method", "2500", "cny", null)).withFixedDelay(800)));
        CompletableFuture<Response> toStripe = CompletableFuture
                .supplyAsync(() -> Shoppers.pay(customer, id, "stripe"));
        sandbox.awaitRequests(postRequestedFor(urlEqualTo("/v1/payment_intents")), 1);
        // ...while a PAY to WeChat Pay replaces the mockpay attempt first
        stubWechatPrepay("weixin://wxpay/bizpayurl?pr=between");
        stubWechatClose();
        String wechatAttempt = attemptOf(Shoppers.pay(customer, id, "wechatpay"));

        String stripeAttempt = attemptOf(toStripe.join());
        runWorker(id);

        // Stripe's PAY replaced the WeChat attempt in its statement: that is the one closed at its provider
        sandbox.server().verify(1, postRequestedFor(urlEqualTo("/v3/pay/transactions/out-trade-no/"
                + wechatAttempt.replace("-", "") + "/close")));
        sandbox.server().verify(0, postRequestedFor(urlPathMatching("/v1/payment_intents/.*/cancel")));
        assertEquals("REPLACED", attemptState(wechatAttempt));
        assertEquals(stripeAttempt, Sql.string("select cast(replaced_by as text) from payment_attempts where id = ?",
                UUID.fromString(wechatAttempt)));
        assertEquals(stripeAttempt, currentAttempt(id));
        assertEquals(3, Sql.historyCount(id, "PAY"));
        assertConsistent(id);
    }

    // --- Stripe and WeChat Pay end to end ------------------------------------------------------------------------

    @Test
    void shouldStartNoPaymentForAPayWhoseIfMatchIsStaleAndStartItWhenTheSameKeyComesWithTheCurrentVersion() {
        String id = createOrder();
        String current = Auth.operator().get("/orders/" + id).header("ETag");
        String intent = "pi_stale_" + id.substring(0, 8);
        stubStripeIntent(intent);
        String key = newKey();
        payIfMatch(id, key, "\"" + (Long.parseLong(current.replace("\"", "")) + 5) + "\"").then().statusCode(412)
                .body("type", is(TYPES + "version-mismatch"));
        sandbox.server().verify(0, postRequestedFor(urlEqualTo("/v1/payment_intents")).withRequestBody(containing(id)));

        Response paid = payIfMatch(id, key, current);
        paid.then().statusCode(200).body("payment.providerReference", is(intent));
        sandbox.server().verify(1, postRequestedFor(urlEqualTo("/v1/payment_intents")).withRequestBody(containing(id)));
        sandbox.server().verify(0, postRequestedFor(urlEqualTo("/v1/payment_intents/" + intent + "/cancel")));
        assertEquals("PENDING", attemptState(paid.path("payment.attemptId")));
    }

    private static Response payIfMatch(String id, String key, String ifMatch) {
        return callerFor(id, "pay").contentType("application/json").header("Idempotency-Key", key)
                .header("If-Match", ifMatch).body(Map.of("provider", "stripe")).post("/orders/" + id + "/pay");
    }

    @Test
    void shouldCreateOnePaymentIntentPerPayAndApplyItsSignedSuccessByTheIntentId() {
        String id = createOrder();
        String intent = "pi_e2e_" + id.substring(0, 8);
        stubStripeIntent(intent);
        String key = newKey();
        Response first = postKeyed(id, "pay", Map.of("provider", "stripe"), key);
        first.then().statusCode(200).body("payment.provider", is("stripe"), "payment.providerReference", is(intent),
                "payment.clientSecret", is(intent + "_secret_s3cr3t"));
        String attempt = first.path("payment.attemptId");
        sandbox.server().verify(1, postRequestedFor(urlEqualTo("/v1/payment_intents"))
                .withHeader("Idempotency-Key", equalTo("orderflow-attempt-" + attempt))
                .withFormParam("metadata[attempt_id]", equalTo(attempt)));
        assertEquals(0, Sql.count("select count(*) from idempotency_keys where cast(result as text) like ?",
                "%" + "s3cr3t" + "%"), "the client secret is never stored");
        stripe(StripeFixtures.event("payment_intent.succeeded", StripeFixtures.intent(intent, "succeeded",
                String.valueOf(AMOUNT), "eur", "ch_" + id.substring(0, 8)))).then().statusCode(200)
                .body("received", is(true));
        assertEquals("PAID", status(id));
        assertEquals("CAPTURED", attemptState(attempt));
    }

    @Test
    void shouldAnswerARetriedStripePayWithTheClientSecretReadAgainFromTheIntentAndStoredNowhere() {
        String id = createOrder();
        String intent = "pi_again_" + id.substring(0, 8);
        stubStripeIntent(intent);
        sandbox.server().stubFor(WireMock.get("/v1/payment_intents/" + intent).willReturn(okJson(StripeFixtures.intent(intent,
                "requires_payment_method", String.valueOf(AMOUNT), "eur", null))));
        String key = newKey();
        String attempt = attemptOf(postKeyed(id, "pay", Map.of("provider", "stripe"), key));

        Response again = postKeyed(id, "pay", Map.of("provider", "stripe"), key);
        again.then().statusCode(200).header("Idempotent-Replayed", "true").header("Cache-Control", "no-store")
                .body("status", is("PAYMENT_PENDING"), "payment.attemptId", is(attempt),
                        "payment.providerReference", is(intent), "payment.clientSecret", is(intent + "_secret_s3cr3t"));
        // read from the intent, not created again (Stripe forgets idempotency keys after 24 hours)
        sandbox.server().verify(1, postRequestedFor(urlEqualTo("/v1/payment_intents")));
        sandbox.server().verify(1, getRequestedFor(urlEqualTo("/v1/payment_intents/" + intent)));
        assertEquals(0, Sql.count("select count(*) from idempotency_keys where cast(result as text) like ?"
                + " or cast(reply as text) like ?", "%s3cr3t%", "%s3cr3t%"), "the client secret is never stored");
    }

    @Test
    void shouldAnswerARetriedWechatPayWithTheCodeUrlAskedAgainForTheSameOutTradeNo() {
        String customer = newCustomer();
        String id = Shoppers.yuanOrder(customer);
        sandbox.server().stubFor(post("/v3/pay/transactions/native")
                .willReturn(okJson("{\"code_url\":\"weixin://wxpay/bizpayurl?pr=again\"}")));
        String key = newKey();
        String attempt = Auth.customer(customer).contentType(ContentType.JSON).header("Idempotency-Key", key)
                .body(Map.of("provider", "wechatpay")).post("/orders/" + id + "/pay").then().statusCode(200)
                .extract().path("payment.attemptId");
        Auth.customer(customer).contentType(ContentType.JSON).header("Idempotency-Key", key)
                .body(Map.of("provider", "wechatpay")).post("/orders/" + id + "/pay").then().statusCode(200)
                .header("Idempotent-Replayed", "true").body("payment.codeUrl", is("weixin://wxpay/bizpayurl?pr=again"));
        sandbox.server().verify(2, postRequestedFor(urlEqualTo("/v3/pay/transactions/native"))
                .withRequestBody(containing(attempt.replace("-", ""))));
    }

    @Test
    void shouldAcknowledgeALateFailureOfAnOlderIntentAndLeaveTheOrderAsItIs() {
        String id = createOrder();
        String older = "pi_old_" + id.substring(0, 8);
        stubStripeIntent(older);
        attemptOf(pay(id, "stripe"));
        String current = attemptOf(pay(id, "mockpay"));
        stripe(StripeFixtures.event("payment_intent.payment_failed", StripeFixtures.failedIntent(older,
                String.valueOf(AMOUNT), "eur", "insufficient_funds"))).then().statusCode(200)
                .body("received", is(true));
        assertEquals("PAYMENT_PENDING", status(id));
        assertEquals(current, currentAttempt(id));
    }

    @Test
    void shouldAcknowledgeAStripeEventForAnIntentNoAttemptHas() {
        stripe(StripeFixtures.event("payment_intent.succeeded", StripeFixtures.intent("pi_nobody_" + UUID.randomUUID()
                .toString().substring(0, 8), "succeeded", "2500", "eur", "ch_nobody"))).then().statusCode(200)
                .body("received", is(true));
    }

    @Test
    void shouldCreateANativePaymentOnPayAndApplyWechatsSuccessByOutTradeNo() {
        String customer = newCustomer();
        String id = Shoppers.yuanOrder(customer);
        sandbox.server().stubFor(post("/v3/pay/transactions/native")
                .willReturn(okJson("{\"code_url\":\"weixin://wxpay/bizpayurl?pr=e2e\"}")));
        Response paid = Auth.customer(customer).contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(Map.of("provider", "wechatpay")).post("/orders/" + id + "/pay");
        paid.then().statusCode(200).body("payment.codeUrl", is("weixin://wxpay/bizpayurl?pr=e2e"));
        String attempt = paid.path("payment.attemptId");
        String outTradeNo = attempt.replace("-", "");
        String body = sandbox.wechat().notification("EV-" + outTradeNo, "TRANSACTION.SUCCESS", "transaction",
                WechatFixtures.transaction(outTradeNo, "42" + outTradeNo.substring(0, 20), "SUCCESS", "2500"));
        given().contentType("application/json").headers(sandbox.wechat().headers(body, Instant.now().getEpochSecond()))
                .body(body.getBytes(StandardCharsets.UTF_8)).post("/payments/wechatpay/callbacks").then()
                .statusCode(204);
        assertEquals("PAID", status(id));
        assertEquals("CAPTURED", attemptState(attempt));
    }

    private double staleAttemptAnswers() {
        return Meters.count(registry, "orderflow.payments.notifications", "provider", "mockpay", "outcome",
                "stale-attempt");
    }
}
