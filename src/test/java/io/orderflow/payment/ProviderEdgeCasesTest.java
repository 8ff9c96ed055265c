package io.orderflow.payment;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.github.tomakehurst.wiremock.client.WireMock;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.idempotency.IdempotencyKeys;
import io.orderflow.payment.callbacks.Acknowledgements;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.stripe.StripeProvider;
import io.orderflow.payment.wechatpay.WechatFixtures;
import io.orderflow.support.Callbacks;
import io.orderflow.support.CapturedLog;
import io.orderflow.support.Contract;
import io.orderflow.support.Meters;
import io.orderflow.support.OrderMother;
import io.orderflow.support.Sql;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a provider's callback route answers at its edges, where an attacker can reach it and a provider re-sends
 * every non-2xx for days: nothing anyone can send without the provider's keys pages the on-call, and nothing the
 * provider signed is refused for a rule that is not the provider's.
 */
@QuarkusTest
@WithTestResource(PaymentSandbox.class)
class ProviderEdgeCasesTest extends SandboxedProviderTest {

    @Inject
    MeterRegistry registry;

    @Override
    protected String provider() {
        return StripeProvider.NAME;
    }

    private static final String TYPES = "https://orderflow.dev/problems/";

    /** An order paying with Stripe through PaymentIntent {@code intent}. */
    private String payingWithStripe(String intent) {
        String id = OrderMother.createOrder();
        server.stubFor(WireMock.post("/v1/payment_intents").willReturn(WireMock.okJson(StripeFixtures.intent(intent,
                "requires_payment_method", String.valueOf(OrderMother.AMOUNT), "eur", null))));
        OrderMother.postKeyed(id, "pay", Map.of("provider", "stripe"), OrderMother.newKey()).then().statusCode(200);
        return id;
    }

    /** Signed by Stripe at {@code signedAt} (unix seconds). */
    private static Response stripe(String payload, long signedAt) {
        return given().contentType("application/json; charset=utf-8")
                .header("Stripe-Signature", StripeFixtures.signature(StripeFixtures.SECRET, signedAt, payload))
                .body(payload.getBytes(StandardCharsets.UTF_8)).post("/payments/stripe/callbacks");
    }

    private Response wechat(String body, Map<String, String> headers) {
        return given().filter(Contract.invalidRequest()).contentType("application/json").headers(headers)
                .body(body.getBytes(StandardCharsets.UTF_8)).post("/payments/wechatpay/callbacks");
    }

    private String paid(String eventId) {
        return sandbox.wechat().notification(eventId, "TRANSACTION.SUCCESS", "transaction",
                WechatFixtures.transaction("t-edge", "4200000099", "SUCCESS", "2500"));
    }

    private double wechatAnswers(String outcome) {
        return Meters.count(registry, "orderflow.payments.notifications", "provider", "wechatpay", "outcome",
                outcome);
    }

    @ParameterizedTest
    @ValueSource(strings = { "!!", "=" })
    void shouldRefuseAWechatSignatureThatIsNoBase64With401AndRaiseNoAlarm(String signature) {
        String body = paid("EV-nob64-" + UUID.randomUUID());
        Map<String, String> headers = new HashMap<>(sandbox.wechat().headers(body, Instant.now().getEpochSecond()));
        headers.put("Wechatpay-Signature", signature);
        double rejected = wechatAnswers("rejected");
        try (CapturedLog log = CapturedLog.start()) {
            wechat(body, headers).then().statusCode(401).contentType("application/json").body("code", is("FAIL"));
            assertEquals(List.of(), log.atLeast(Level.SEVERE), "anyone can send this: no ERROR, no page");
        }
        assertEquals(rejected + 1, wechatAnswers("rejected"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "\"\"", "\"AAAA\"", "12345" })
    void shouldAcknowledgeASignedWechatNotificationWithAMalformedCiphertextAsAnAnomalyWithoutTheKeyAlarm(
            String ciphertext) {
        String event = "EV-malformed-" + UUID.randomUUID();
        String body = paid(event).replaceFirst("\"ciphertext\":\"[^\"]*\"", "\"ciphertext\":" + ciphertext);
        try (CapturedLog log = CapturedLog.start()) {
            for (int delivery = 0; delivery < 2; delivery++) {
                wechat(body, sandbox.wechat().headers(body, Instant.now().getEpochSecond())).then().statusCode(204)
                        .header(Acknowledgements.OUTCOME_HEADER, "invalid");
            }
            assertEquals(List.of(), log.atLeast(Level.SEVERE), "a malformed resource is no key problem");
        }
        assertEquals(1, Sql.count("select count(*) from payment_anomalies where provider = 'wechatpay'"
                + " and event_id = ? and kind = 'invalid-event'", event));
    }

    @Test
    void shouldRaiseTheKeyAlarmOnlyForAVerifiedWellFormedResourceWhoseTagFails() {
        WechatFixtures otherKey = WechatFixtures.createTemporary();
        String body = otherKey.notification("EV-tag-" + UUID.randomUUID(), "TRANSACTION.SUCCESS", "transaction",
                WechatFixtures.transaction("t-edge", "4200000098", "SUCCESS", "2500"));
        try (CapturedLog log = CapturedLog.start()) {
            wechat(body, sandbox.wechat().headers(body, Instant.now().getEpochSecond())).then().statusCode(503);
            assertEquals(1, log.atLeast(Level.SEVERE).stream().filter(line -> line.contains("api-v3-key")).count());
        }
    }

    @Test
    void shouldRefuseAStripeEventSignedFarInTheFutureAndLeaveTheOrderUnpaid() {
        String intent = "pi_future_" + UUID.randomUUID().toString().substring(0, 8);
        String id = payingWithStripe(intent);
        String payload = StripeFixtures.event("payment_intent.succeeded", StripeFixtures.intent(intent, "succeeded",
                String.valueOf(OrderMother.AMOUNT), "eur", "ch_" + intent));
        stripe(payload, Instant.now().getEpochSecond() + 1_000_000).then().statusCode(400)
                .contentType("application/problem+json").body("type", is(TYPES + "signature-invalid"));
        assertEquals("PAYMENT_PENDING", Sql.string("select status from orders where id = ?", UUID.fromString(id)));
    }

    private static String derivedId(String id) {
        return "sha256:" + IdempotencyKeys.fingerprint(id);
    }

    private static long anomalies(String provider, String eventId, String kind, String orderId) {
        return Sql.count("select count(*) from payment_anomalies where provider = ? and event_id = ? and kind = ?"
                + " and order_id = ?", provider, eventId, kind, UUID.fromString(orderId));
    }

    @Test
    void shouldAcknowledgeAVerifiedStripeEventWhoseIdIsNotPrintableAsciiAsAnAnomalyUnderADerivedId() {
        String intent = "pi_accent_" + UUID.randomUUID().toString().substring(0, 8);
        String id = payingWithStripe(intent);
        String event = "évt-" + UUID.randomUUID();
        String payload = StripeFixtures.event(event, "payment_intent.succeeded", StripeFixtures.intent(intent,
                "succeeded", String.valueOf(OrderMother.AMOUNT), "eur", "ch_" + intent));
        for (int delivery = 0; delivery < 2; delivery++) {
            stripe(payload, Instant.now().getEpochSecond()).then().statusCode(200).body("received", is(true))
                    .header(Acknowledgements.OUTCOME_HEADER, "invalid");
        }
        assertEquals(1, anomalies("stripe", derivedId(event), "invalid-event", id));
        assertEquals("PAYMENT_PENDING", Sql.string("select status from orders where id = ?", UUID.fromString(id)));
    }

    @Test
    void shouldAcknowledgeAVerifiedWechatOrMockpayEventWhoseIdIsNotPrintableAsciiAsAnAnomaly() {
        String customer = OrderMother.newCustomer();
        String yuan = Shoppers.yuanOrder(customer);
        server.stubFor(WireMock.post("/v3/pay/transactions/native")
                .willReturn(WireMock.okJson("{\"code_url\":\"weixin://wxpay/bizpayurl?pr=accent\"}")));
        String outTradeNo = Shoppers.payWithWechat(customer, yuan);
        String wechatEvent = "EV-日本-" + UUID.randomUUID();
        String body = sandbox.wechat().notification(wechatEvent, "TRANSACTION.SUCCESS", "transaction",
                WechatFixtures.transaction(outTradeNo, "42" + outTradeNo.substring(0, 20), "SUCCESS", "2500"));
        wechat(body, sandbox.wechat().headers(body, Instant.now().getEpochSecond())).then().statusCode(204)
                .header(Acknowledgements.OUTCOME_HEADER, "invalid");
        assertEquals(1, anomalies("wechatpay", derivedId(wechatEvent), "invalid-event", yuan));

        String order = OrderMother.createOrder();
        String mockpayEvent = "évt-" + UUID.randomUUID();
        Callbacks.deliver(Callbacks.event(mockpayEvent, "PAYMENT_SUCCEEDED", order, OrderMother.AMOUNT, "EUR",
                "txn-" + mockpayEvent.substring(4))).then().statusCode(200).body("outcome", is("invalid"));
        assertEquals(1, anomalies("mockpay", derivedId(mockpayEvent), "invalid-event", order));
    }

    @Test
    void shouldAcknowledgeAStripeEventIdSentAgainWithOtherContentAsAnAnomalyAndKeepTheFirst() {
        String intent = "pi_reused_" + UUID.randomUUID().toString().substring(0, 8);
        String id = payingWithStripe(intent);
        String event = "evt_" + UUID.randomUUID().toString().replace("-", "");
        stripe(StripeFixtures.event(event, "payment_intent.payment_failed", StripeFixtures.failedIntent(intent,
                String.valueOf(OrderMother.AMOUNT), "eur", "insufficient_funds")), Instant.now().getEpochSecond())
                .then().statusCode(200);
        String succeeded = StripeFixtures.event(event, "payment_intent.succeeded", StripeFixtures.intent(intent,
                "succeeded", String.valueOf(OrderMother.AMOUNT), "eur", "ch_" + intent));
        for (int delivery = 0; delivery < 2; delivery++) {
            stripe(succeeded, Instant.now().getEpochSecond()).then().statusCode(200).body("received", is(true))
                    .header(Acknowledgements.OUTCOME_HEADER, "event-reused");
        }
        assertEquals(1, anomalies("stripe", event, "event-reused", id));
        assertEquals("CREATED", Sql.string("select status from orders where id = ?", UUID.fromString(id)),
                "the first content (payment_failed) stands");
        assertEquals(0, Sql.historyCount(id, "PAYMENT_SUCCEEDED"));
    }
}
