package io.orderflow.payment;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.wechatpay.WechatFixtures;
import io.orderflow.support.Contract;
import io.orderflow.support.Management;
import io.orderflow.support.Sql;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Stripe's and WeChat Pay's callbacks over real HTTP: each answered in its provider's own format — a decided
 * outcome (ignored, invalid, no attempt of ours) with 2xx so the provider stops, a signature failure with the 4xx it
 * documents. Payments matched to attempts end to end: {@link PaymentAttemptsTest}.
 */
@QuarkusTest
@WithTestResource(PaymentSandbox.class)
class ProviderCallbacksTest {

    private static final String TYPES = "https://orderflow.dev/problems/";

    @PaymentSandbox.InjectSandbox
    PaymentSandbox.Sandbox sandbox;

    private Instant started;

    @BeforeEach
    void markTheStart() {
        started = Instant.now().minusSeconds(1);
    }

    @AfterEach
    void checkTheOrdersOfTheTest() {
        assertEquals(List.of(), SandboxedProviderTest.violationsOfOrdersCreatedSince(started));
    }

    private static Response stripe(String payload, String signature) {
        var request = (signature == null ? given().filter(Contract.invalidRequest()) : given())
                .contentType("application/json; charset=utf-8").body(payload.getBytes(StandardCharsets.UTF_8));
        if (signature != null) {
            request = request.header("Stripe-Signature", signature);
        }
        return request.post("/payments/stripe/callbacks");
    }

    private static Response stripeSigned(String payload) {
        return stripe(payload, StripeFixtures.signature(StripeFixtures.SECRET, Instant.now().getEpochSecond(),
                payload));
    }

    private Response wechat(String body, long timestamp) {
        return given().contentType("application/json").headers(sandbox.wechat().headers(body, timestamp))
                .body(body.getBytes(StandardCharsets.UTF_8)).post("/payments/wechatpay/callbacks");
    }

    /** Well signed, but not what the contract describes (hostile text): only the answer is checked against it. */
    private static Response stripeHostile(String payload) {
        return given().filter(Contract.invalidRequest()).contentType("application/json; charset=utf-8")
                .header("Stripe-Signature", StripeFixtures.signature(StripeFixtures.SECRET,
                        Instant.now().getEpochSecond(), payload))
                .body(payload.getBytes(StandardCharsets.UTF_8)).post("/payments/stripe/callbacks");
    }

    private Response wechatHostile(String body) {
        return given().filter(Contract.invalidRequest()).contentType("application/json")
                .headers(sandbox.wechat().headers(body, Instant.now().getEpochSecond()))
                .body(body.getBytes(StandardCharsets.UTF_8)).post("/payments/wechatpay/callbacks");
    }

    /** Rows a callback may write, counted: a hostile event must add exactly one anomaly and nothing else. */
    private static List<Long> writtenRows() {
        return List.of(Sql.count("select count(*) from idempotency_keys"),
                Sql.count("select count(*) from order_transitions"), Sql.count("select count(*) from payment_captures"),
                Sql.count("select count(*) from payment_attempts"), Sql.count("select count(*) from provider_commands"),
                Sql.count("select count(*) from provider_refunds"));
    }

    private static long anomalies(String provider, String eventId) {
        return Sql.count("select count(*) from payment_anomalies where provider = ? and event_id = ?"
                + " and kind = 'invalid-event'", provider, eventId);
    }

    private static String sha256(String body) {
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(body.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Text no column should take: NUL, other C0 controls, DEL, a C1 control, a lone surrogate, as JSON escapes;
     * and a raw control character, which makes the payload no JSON at all.
     */
    static List<String> hostileText() {
        return List.of("\\u0000", "\\u0007", "\\u001b[31m", "\\u007f", "\\u0085", "\\ud800", "\\udfff", "\u0001");
    }

    @ParameterizedTest
    @MethodSource("hostileText")
    void shouldAcknowledgeAWellSignedStripeEventWithAHostileIdAsOneAnomalyAndWriteNothingElse(String hostile) {
        String payload = StripeFixtures.event("evt_" + hostile + UUID.randomUUID().toString().replace("-", ""),
                "payment_intent.succeeded", StripeFixtures.intent("pi_h_" + UUID.randomUUID(), "succeeded", "2500",
                        "eur", "ch_h"));
        List<Long> before = writtenRows();
        for (int delivery = 0; delivery < 2; delivery++) {
            stripeHostile(payload).then().statusCode(200).contentType("application/json").body("received", is(true));
        }
        assertEquals(1, anomalies("stripe", sha256(payload)), "recorded once, under the payload's SHA-256");
        assertEquals(before, writtenRows());
    }

    @ParameterizedTest
    @MethodSource("hostileText")
    void shouldAcknowledgeAWellSignedStripeEventWithAHostileTypeOrFieldAsOneAnomaly(String hostile) {
        String event = "evt_" + UUID.randomUUID().toString().replace("-", "");
        String badType = StripeFixtures.event(event, "payment_intent.succeeded" + hostile,
                StripeFixtures.intent("pi_h_" + UUID.randomUUID(), "succeeded", "2500", "eur", "ch_h"));
        String otherEvent = "evt_" + UUID.randomUUID().toString().replace("-", "");
        String badIntent = StripeFixtures.event(otherEvent, "payment_intent.succeeded",
                StripeFixtures.intent("pi_" + hostile + UUID.randomUUID(), "succeeded", "2500", "eur", "ch_h"));
        String thirdEvent = "evt_" + UUID.randomUUID().toString().replace("-", "");
        String badCharge = StripeFixtures.event(thirdEvent, "charge.refunded", StripeFixtures.charge("ch_" + hostile,
                "pi_h_" + UUID.randomUUID(), "2500", "2500", true));
        List<Long> before = writtenRows();
        for (String payload : List.of(badType, badIntent, badCharge)) {
            stripeHostile(payload).then().statusCode(200).body("received", is(true));
        }
        boolean noJson = !hostile.startsWith("\\");
        assertEquals(1, anomalies("stripe", noJson ? sha256(badType) : event));
        assertEquals(1, anomalies("stripe", noJson ? sha256(badIntent) : otherEvent));
        assertEquals(1, anomalies("stripe", noJson ? sha256(badCharge) : thirdEvent));
        assertEquals(before, writtenRows());
    }

    @ParameterizedTest
    @MethodSource("hostileText")
    void shouldAcknowledgeAWellSignedWechatNotificationWithAHostileIdAsOneAnomalyAndWriteNothingElse(
            String hostile) {
        if (!hostile.startsWith("\\")) {
            return; // WeChat's bodies are built as JSON here; a raw control character is covered for Stripe
        }
        String body = sandbox.wechat().notification("EV-" + hostile + UUID.randomUUID(), "TRANSACTION.SUCCESS",
                "transaction", WechatFixtures.transaction("t-h", "4200000009", "SUCCESS", "2500"));
        List<Long> before = writtenRows();
        for (int delivery = 0; delivery < 2; delivery++) {
            wechatHostile(body).then().statusCode(204).body(emptyString());
        }
        assertEquals(1, anomalies("wechatpay", sha256(body)), "recorded once, under the body's SHA-256");
        assertEquals(before, writtenRows());
    }

    @ParameterizedTest
    @MethodSource("hostileText")
    void shouldAcknowledgeAWellSignedWechatNotificationWithAHostileTypeOrResourceFieldAsOneAnomaly(String hostile) {
        if (!hostile.startsWith("\\")) {
            return;
        }
        String typeId = "EV-" + UUID.randomUUID();
        String badType = sandbox.wechat().notification(typeId, "TRANSACTION.SUCCESS" + hostile, "transaction",
                WechatFixtures.transaction("t-h", "4200000010", "SUCCESS", "2500"));
        String tradeId = "EV-" + UUID.randomUUID();
        String badTrade = sandbox.wechat().notification(tradeId, "TRANSACTION.SUCCESS", "transaction",
                WechatFixtures.transaction("t" + hostile, "4200000011", "SUCCESS", "2500"));
        String txnId = "EV-" + UUID.randomUUID();
        String badTxn = sandbox.wechat().notification(txnId, "TRANSACTION.SUCCESS", "transaction",
                WechatFixtures.transaction("t-h2", "42" + hostile, "SUCCESS", "2500"));
        String refundId = "EV-" + UUID.randomUUID();
        String badRefund = sandbox.wechat().notification(refundId, "REFUND.SUCCESS", "refund",
                WechatFixtures.refund("t-h3", "4200000012", "r-h", "50" + hostile, "SUCCESS", "2500"));
        List<Long> before = writtenRows();
        for (String body : List.of(badType, badTrade, badTxn, badRefund)) {
            wechatHostile(body).then().statusCode(204);
        }
        for (String id : List.of(typeId, tradeId, txnId, refundId)) {
            assertEquals(1, anomalies("wechatpay", id), id);
        }
        assertEquals(before, writtenRows());
    }

    @Test
    void shouldAcknowledgeAStripeEventItIgnoresWithStripesAck() {
        stripeSigned(StripeFixtures.event("customer.created", "{\"id\":\"cus_1\",\"object\":\"customer\"}")).then()
                .statusCode(200).contentType("application/json").body("received", is(true));
    }

    @Test
    void shouldAcknowledgeAndCountAVerifiedStripeEventWithAnInvalidAmount() {
        // a fraction of a cent: outside the contract's StripeObject on purpose, so only the answer is validated
        String payload = StripeFixtures.event("payment_intent.succeeded",
                StripeFixtures.intent("pi_bad", "succeeded", "2500.9", "eur", "ch_bad"));
        given().filter(Contract.invalidRequest()).contentType("application/json; charset=utf-8")
                .header("Stripe-Signature", StripeFixtures.signature(StripeFixtures.SECRET,
                        Instant.now().getEpochSecond(), payload))
                .body(payload.getBytes(StandardCharsets.UTF_8)).post("/payments/stripe/callbacks").then()
                .statusCode(200);
        Management.given().get("/q/metrics").then().body(containsString(
                "orderflow_payments_notifications_total{outcome=\"invalid\",provider=\"stripe\"}"));
    }

    @Test
    void shouldRefuseABadStripeSignatureWithTheDocumented400() throws Exception {
        String payload = StripeFixtures.event("payment_intent.succeeded",
                StripeFixtures.intent("pi_1", "succeeded", "2500", "eur", "ch_1"));
        stripe(payload, StripeFixtures.signature("whsec_wrong", Instant.now().getEpochSecond(), payload)).then()
                .statusCode(400).contentType("application/problem+json").body("type", is(TYPES + "signature-invalid"));
        stripe(payload, StripeFixtures.signature(StripeFixtures.SECRET, Instant.now().getEpochSecond() - 400,
                payload)).then().statusCode(400);
        // without any signature header (outside the contract's security scheme on purpose): the answer is validated
        HttpRequest unsignedRequest = HttpRequest.newBuilder(URI.create(
                RestAssured.baseURI + ":" + RestAssured.port
                        + "/payments/stripe/callbacks"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(payload)).build();
        HttpResponse<String> unsigned = Contract.asDocumentedResponse(unsignedRequest,
                HttpClient.newHttpClient().send(unsignedRequest,
                        HttpResponse.BodyHandlers.ofString()));
        assertEquals(400, unsigned.statusCode());
        assertEquals(true, unsigned.body().contains(TYPES + "signature-missing"), unsigned.body());
    }

    @Test
    void shouldAcknowledgeAStripePaymentOfAnIntentNoAttemptHasAndRecordIt() {
        String event = "evt_" + UUID.randomUUID().toString().replace("-", "");
        stripeSigned(StripeFixtures.event(event, "payment_intent.succeeded",
                StripeFixtures.intent("pi_unknown_" + event, "succeeded", "2500", "eur", "ch_2"))).then()
                .statusCode(200).body("received", is(true));
        assertEquals(1, Sql.count("select count(*) from payment_anomalies where provider = 'stripe' and event_id = ?"
                + " and kind = 'unknown-attempt' and order_id is null", event));
    }

    @Test
    void shouldAcknowledgeAWechatNotificationItIgnoresWith204AndNoBody() {
        String body = sandbox.wechat().notification("EV-ign", "REFUND.ABNORMAL", "refund",
                WechatFixtures.refund("t1", "4200000001", "r1", "5030", "ABNORMAL", "2500"));
        wechat(body, Instant.now().getEpochSecond()).then().statusCode(204).body(emptyString());
    }

    @Test
    void shouldAcknowledgeAVerifiedWechatPaymentWithAnInvalidTotal() {
        String body = sandbox.wechat().notification("EV-inv", "TRANSACTION.SUCCESS", "transaction",
                WechatFixtures.transaction("t2", "4200000002", "SUCCESS", "\"2500\""));
        wechat(body, Instant.now().getEpochSecond()).then().statusCode(204);
    }

    @Test
    void shouldRefuseABadOrStaleWechatSignatureWithCodeFail() {
        String body = sandbox.wechat().notification("EV-sig", "TRANSACTION.SUCCESS", "transaction",
                WechatFixtures.transaction("t3", "4200000003", "SUCCESS", "2500"));
        Map<String, String> headers = sandbox.wechat().headers(body, Instant.now().getEpochSecond());
        given().contentType("application/json").headers(headers).body(body.replace("EV-sig", "EV-forged"))
                .post("/payments/wechatpay/callbacks").then().statusCode(401).contentType("application/json")
                .body("code", is("FAIL"), "message", not(emptyOrNullString()));
        wechat(body, Instant.now().getEpochSecond() - 301).then().statusCode(401).body("code", is("FAIL"));
    }

    @Test
    void shouldAcknowledgeAWechatPaymentOfAnOutTradeNoNoAttemptHasAndRecordIt() {
        String event = "EV-" + UUID.randomUUID();
        String body = sandbox.wechat().notification(event, "TRANSACTION.SUCCESS", "transaction",
                WechatFixtures.transaction("t4", "4200000004", "SUCCESS", "2500"));
        wechat(body, Instant.now().getEpochSecond()).then().statusCode(204);
        assertEquals(1, Sql.count("select count(*) from payment_anomalies where provider = 'wechatpay'"
                + " and event_id = ? and kind = 'unknown-attempt'", event));
    }
}
