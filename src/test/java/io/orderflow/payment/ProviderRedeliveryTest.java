package io.orderflow.payment;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.payment.callbacks.Acknowledgements;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.stripe.StripeProvider;
import io.orderflow.payment.wechatpay.WechatFixtures;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A provider re-sends a notification until it hears a 2xx: Stripe's {@code payment_intent.succeeded} and WeChat
 * Pay's {@code TRANSACTION.SUCCESS}, each delivered 15 times one after another and 15 times at once, have the effect
 * of one delivery; a late notification about an attempt the order no longer stands on is acknowledged and changes
 * the order no further than the table allows.
 */
@QuarkusTest
@WithTestResource(PaymentSandbox.class)
class ProviderRedeliveryTest extends SandboxedProviderTest {

    private static final int DELIVERIES = 15;

    @Override
    protected String provider() {
        return StripeProvider.NAME;
    }

    /** An order paying with Stripe through PaymentIntent {@code intent}. */
    private String payingWithStripe(String intent) {
        String id = createOrder();
        server.stubFor(post("/v1/payment_intents").willReturn(okJson(StripeFixtures.intent(intent,
                "requires_payment_method", String.valueOf(AMOUNT), "eur", null))));
        postKeyed(id, "pay", Map.of("provider", "stripe"), newKey()).then().statusCode(200);
        return id;
    }

    /** A CNY order paying with WeChat Pay Native; returns {order id, out_trade_no}. */
    private String[] payingWithWechat(String customer) {
        breakers.reset("wechatpay");
        String id = Shoppers.yuanOrder(customer);
        server.stubFor(post("/v3/pay/transactions/native")
                .willReturn(okJson("{\"code_url\":\"weixin://wxpay/bizpayurl?pr=redeliver\"}")));
        return new String[] { id, Shoppers.payWithWechat(customer, id) };
    }

    /** Stripe signs each delivery anew (a fresh timestamp); the payload and its event id stay the same. */
    private static Response stripe(String payload) {
        return given().contentType("application/json; charset=utf-8")
                .header("Stripe-Signature", StripeFixtures.signature(StripeFixtures.SECRET,
                        Instant.now().getEpochSecond(), payload))
                .body(payload.getBytes(StandardCharsets.UTF_8)).post("/payments/stripe/callbacks");
    }

    private Response wechat(String body) {
        return given().contentType("application/json")
                .headers(sandbox.wechat().headers(body, Instant.now().getEpochSecond()))
                .body(body.getBytes(StandardCharsets.UTF_8)).post("/payments/wechatpay/callbacks");
    }

    /**
     * Delivers like a provider: re-sends a 503 (the documented in-flight answer while another delivery of the same
     * event is being decided) until a 2xx; any other answer is final. Returns every answer, in order.
     */
    private static List<Response> deliverUntilHeard(Supplier<Response> delivery) {
        List<Response> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Response answer = delivery.get();
            answers.add(answer);
            if (answer.statusCode() != 503) {
                break;
            }
        }
        return answers;
    }

    /**
     * Every delivery was finally answered 2xx, the only non-2xx answers were in-flight 503s followed by a 2xx,
     * and exactly one delivery applied the event (the rest replayed its answer or were judged duplicates).
     */
    private static void assertOneEffect(List<List<Response>> deliveries, int ack) {
        int applied = 0;
        for (List<Response> answers : deliveries) {
            Response last = answers.get(answers.size() - 1);
            assertEquals(ack, last.statusCode(), last.asString());
            assertTrue(answers.subList(0, answers.size() - 1).stream().allMatch(a -> a.statusCode() == 503),
                    "non-2xx answers other than an in-flight 503: " + answers.stream().map(Response::statusCode)
                            .toList());
            if ("applied".equals(last.header(Acknowledgements.OUTCOME_HEADER))
                    && !"true".equals(last.header("Idempotent-Replayed"))) {
                applied++;
            }
        }
        assertEquals(1, applied, "deliveries that applied the event");
    }

    private static void assertPaidOnce(String id, String txnId) {
        assertEquals(1, Sql.historyCount(id, "PAYMENT_SUCCEEDED"));
        assertEquals(txnId, Sql.string("select payment_txn_id from orders where id = ?", UUID.fromString(id)));
        assertEquals(1, Sql.count("select count(*) from payment_captures where order_id = ?", UUID.fromString(id)));
        assertEquals(0, Sql.count("select count(*) from payment_anomalies where order_id = ?", UUID.fromString(id)));
        assertEquals(List.of(), Sql.violations(List.of(id)));
    }

    @Test
    void shouldApplyAStripeSuccessDelivered15TimesOneAfterAnotherOnce() {
        String intent = "pi_seq_" + UUID.randomUUID().toString().substring(0, 8);
        String id = payingWithStripe(intent);
        String payload = StripeFixtures.event("payment_intent.succeeded", StripeFixtures.intent(intent, "succeeded",
                String.valueOf(AMOUNT), "eur", "ch_" + intent));

        List<List<Response>> deliveries = new ArrayList<>();
        for (int i = 0; i < DELIVERIES; i++) {
            deliveries.add(deliverUntilHeard(() -> stripe(payload)));
        }

        assertOneEffect(deliveries, 200);
        assertPaidOnce(id, "ch_" + intent);
    }

    @Test
    void shouldApplyAStripeSuccessDelivered15TimesAtOnceOnce() {
        String intent = "pi_par_" + UUID.randomUUID().toString().substring(0, 8);
        String id = payingWithStripe(intent);
        String payload = StripeFixtures.event("payment_intent.succeeded", StripeFixtures.intent(intent, "succeeded",
                String.valueOf(AMOUNT), "eur", "ch_" + intent));

        List<List<Response>> deliveries = Parallel.run(DELIVERIES, i -> deliverUntilHeard(() -> stripe(payload)));

        assertOneEffect(deliveries, 200);
        assertPaidOnce(id, "ch_" + intent);
    }

    @Test
    void shouldApplyAWechatSuccessDelivered15TimesOneAfterAnotherOnce() {
        String[] paying = payingWithWechat(newCustomer());
        String transaction = "42" + paying[1].substring(0, 20);
        String body = sandbox.wechat().notification("EV-seq-" + paying[1], "TRANSACTION.SUCCESS", "transaction",
                WechatFixtures.transaction(paying[1], transaction, "SUCCESS", "2500"));

        List<List<Response>> deliveries = new ArrayList<>();
        for (int i = 0; i < DELIVERIES; i++) {
            deliveries.add(deliverUntilHeard(() -> wechat(body)));
        }

        assertOneEffect(deliveries, 204);
        assertPaidOnce(paying[0], transaction);
    }

    @Test
    void shouldApplyAWechatSuccessDelivered15TimesAtOnceOnce() {
        String[] paying = payingWithWechat(newCustomer());
        String transaction = "42" + paying[1].substring(0, 20);
        String body = sandbox.wechat().notification("EV-par-" + paying[1], "TRANSACTION.SUCCESS", "transaction",
                WechatFixtures.transaction(paying[1], transaction, "SUCCESS", "2500"));

        List<List<Response>> deliveries = Parallel.run(DELIVERIES, i -> deliverUntilHeard(() -> wechat(body)));

        assertOneEffect(deliveries, 204);
        assertPaidOnce(paying[0], transaction);
    }

    @Test
    void shouldAcknowledgeALateWechatSuccessOfAReplacedAttemptAsADoubleCaptureOfThePaidOrder() {
        String customer = newCustomer();
        String[] paying = payingWithWechat(customer);
        server.stubFor(post(urlPathMatching("/v3/pay/transactions/out-trade-no/.*/close"))
                .willReturn(aResponse().withStatus(204)));
        String intent = "pi_after_wx_" + paying[1].substring(0, 8);
        server.stubFor(post("/v1/payment_intents").willReturn(okJson(StripeFixtures.intent(intent,
                "requires_payment_method", "2500", "cny", null))));
        Shoppers.pay(customer, paying[0], "stripe").then().statusCode(200);
        stripe(StripeFixtures.event("payment_intent.succeeded", StripeFixtures.intent(intent, "succeeded", "2500",
                "cny", "ch_" + intent))).then().statusCode(200);
        // the shopper had already scanned the first QR code: WeChat's success arrives late, and again
        String late = sandbox.wechat().notification("EV-late-" + paying[1], "TRANSACTION.SUCCESS", "transaction",
                WechatFixtures.transaction(paying[1], "42" + paying[1].substring(0, 20), "SUCCESS", "2500"));
        for (int i = 0; i < 3; i++) {
            wechat(late).then().statusCode(204);
        }

        assertEquals("PAID", Sql.string("select status from orders where id = ?", UUID.fromString(paying[0])));
        assertEquals("ch_" + intent, Sql.string("select payment_txn_id from orders where id = ?",
                UUID.fromString(paying[0])));
        assertEquals(1, Sql.historyCount(paying[0], "PAYMENT_SUCCEEDED"));
        assertEquals("REFUND_OWED", Sql.string("select state from payment_captures where txn_id = ?",
                "42" + paying[1].substring(0, 20)));
        assertEquals(1, Sql.count("select count(*) from provider_commands where capture_txn_id = ?",
                "42" + paying[1].substring(0, 20)), "one refund owed, however often WeChat re-sends");
        assertEquals(List.of(), Sql.violations(List.of(paying[0])));
    }
}
