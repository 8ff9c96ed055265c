package io.orderflow.payment;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.wechatpay.WechatFixtures;
import io.orderflow.support.Contract;
import io.orderflow.support.Sql;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

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
        given().get("/q/metrics").then().body(containsString(
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
        java.net.http.HttpRequest unsignedRequest = java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                io.restassured.RestAssured.baseURI + ":" + io.restassured.RestAssured.port
                        + "/payments/stripe/callbacks"))
                .header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(payload)).build();
        java.net.http.HttpResponse<String> unsigned = Contract.asDocumentedResponse(unsignedRequest,
                java.net.http.HttpClient.newHttpClient().send(unsignedRequest,
                        java.net.http.HttpResponse.BodyHandlers.ofString()));
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
