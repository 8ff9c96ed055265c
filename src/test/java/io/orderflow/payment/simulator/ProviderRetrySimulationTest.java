package io.orderflow.payment.simulator;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.payment.PaymentSandbox;
import io.orderflow.payment.Shoppers;
import io.orderflow.payment.mockpay.SignatureVerifier;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.wechatpay.WechatFixtures;
import io.orderflow.support.Callbacks;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The provider retry simulator against the live service, once per provider: mockpay's signed JSON, Stripe's signed
 * events on Stripe's schedule, WeChat Pay's signed and encrypted notifications on WeChat's. Every payment is started
 * by a real PAY (Stripe and WeChat Pay played by the sandbox). Sizes come from system properties, so the same test is
 * the documented way to run bigger simulations: {@code ./mvnw test -Dtest=ProviderRetrySimulationTest
 * -Dsimulator.orders=1000 -Dsimulator.day=PT10S -Dsimulator.ackDropRate=0.5}.
 */
@QuarkusTest
@WithTestResource(PaymentSandbox.class)
class ProviderRetrySimulationTest {

    @TestHTTPResource
    URL service;

    @PaymentSandbox.InjectSandbox
    PaymentSandbox.Sandbox sandbox;

    private ProviderRetrySimulator.Settings settings() {
        return new ProviderRetrySimulator.Settings(service.toString().replaceAll("/$", ""),
                Duration.parse(System.getProperty("simulator.day", "PT4S")),
                Double.parseDouble(System.getProperty("simulator.ackDropRate", "1.0")),
                Double.parseDouble(System.getProperty("simulator.concurrentRate", "0.2")),
                Double.parseDouble(System.getProperty("simulator.staleRate", "0.1")),
                Long.getLong("simulator.seed", 20261130L));
    }

    private static int orders(int byDefault) {
        return Integer.getInteger("simulator.orders", byDefault);
    }

    @Test
    void shouldApplyEveryMockpayPaymentExactlyOnceAcross15RedeliveriesWithLostAcksAndConcurrentDuplicates() {
        List<ProviderRetrySimulator.Charge> charges = Parallel.run(orders(200), 16, i -> {
            String id = createOrder();
            postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
            return new ProviderRetrySimulator.Charge(id, null, AMOUNT, "EUR", "txn-sim-" + id);
        });
        simulate(new Mockpay(), charges);
    }

    @Test
    void shouldApplyEveryStripePaymentExactlyOnceAcrossThreeDaysOfRedeliveries() {
        List<ProviderRetrySimulator.Charge> charges = Parallel.run(orders(100), 16, i -> {
            String id = createOrder();
            String intent = "pi_sim_" + id.replace("-", "");
            sandbox.server().stubFor(post("/v1/payment_intents").withFormParam("metadata[order_id]", equalTo(id))
                    .willReturn(okJson(StripeFixtures.intent(intent, "requires_payment_method",
                            String.valueOf(AMOUNT), "eur", null))));
            assertEquals(intent, postKeyed(id, "pay", Map.of("provider", "stripe"), newKey()).then().statusCode(200)
                    .extract().path("payment.providerReference"));
            return new ProviderRetrySimulator.Charge(id, intent, AMOUNT, "EUR", "ch_sim_" + id.replace("-", ""));
        });
        simulate(new Stripe(), charges);
    }

    @Test
    void shouldApplyEveryWechatPaymentExactlyOnceAcross15SignedEncryptedRedeliveries() {
        sandbox.server().stubFor(post("/v3/pay/transactions/native")
                .willReturn(okJson("{\"code_url\":\"weixin://wxpay/bizpayurl?pr=simulated\"}")));
        List<ProviderRetrySimulator.Charge> charges = Parallel.run(orders(100), 16, i -> {
            String customer = newCustomer();
            String id = Shoppers.yuanOrder(customer);
            String outTradeNo = Shoppers.payWithWechat(customer, id);
            return new ProviderRetrySimulator.Charge(id, outTradeNo, 2500, "CNY", "42" + outTradeNo.substring(0, 26));
        });
        simulate(new Wechat(sandbox.wechat()), charges);
    }

    /**
     * Runs the simulation and checks what the provider saw and what the database holds: every event the service
     * decided was acknowledged with 2xx (a 503 only while another delivery was in flight, and then re-sent and
     * acknowledged), each payment applied exactly once, and the invariant checker finds nothing.
     */
    private void simulate(ProviderRetrySimulator.Provider provider, List<ProviderRetrySimulator.Charge> charges) {
        ProviderRetrySimulator.Settings settings = settings();
        ProviderRetrySimulator.Report report = new ProviderRetrySimulator(settings, provider).run(charges);
        System.out.println(report.summary());

        assertTrue(report.deliveries() >= charges.size() * (1 + provider.schedule().size())
                || settings.ackDropRate() < 1.0, "with every ack lost, each notification is delivered on the whole"
                        + " schedule: " + report.deliveries());
        assertEquals(List.of(), report.unacknowledged(), "events answered other than 2xx (or an in-flight 503"
                + " then 2xx): " + report.statuses());
        assertEquals(report.non2xx(), report.retried503(), "every non-2xx answer was an in-flight 503 re-sent");
        assertEquals(List.of(), report.undocumented().stream().distinct().limit(5).toList(),
                "every delivery and its answer as openapi.yaml says");
        List<String> ids = charges.stream().map(ProviderRetrySimulator.Charge::orderId).toList();
        for (ProviderRetrySimulator.Charge charge : charges) {
            assertEquals(1, Sql.historyCount(charge.orderId(), "PAYMENT_SUCCEEDED"), charge.orderId());
            assertEquals(charge.txnId(), Sql.string("select payment_txn_id from orders where id = ?::uuid",
                    charge.orderId()));
            assertEquals(1, Sql.count("select count(*) from payment_captures where order_id = ?::uuid",
                    charge.orderId()), "one capture per payment");
        }
        assertEquals(0, Sql.count("select count(*) from payment_anomalies a join unnest(?::uuid[]) o(id) on a.order_id"
                + " = o.id where a.kind = 'double-capture'", (Object) ids.toArray(String[]::new)),
                "no order was charged twice");
        assertEquals(List.of(), Sql.violations(ids), "the invariant checker over the simulated orders");
    }

    /** mockpay's HMAC-signed JSON, on WeChat Pay's schedule (mockpay has none of its own). */
    private static final class Mockpay implements ProviderRetrySimulator.Provider {
        @Override
        public String name() {
            return Callbacks.PROVIDER;
        }

        @Override
        public List<Duration> schedule() {
            return ProviderRetrySimulator.WECHAT_SCHEDULE;
        }

        @Override
        public String newEventId() {
            return "evt_" + UUID.randomUUID();
        }

        @Override
        public String success(String eventId, ProviderRetrySimulator.Charge charge) {
            return Callbacks.event(eventId, "PAYMENT_SUCCEEDED", charge.orderId(), charge.amount(),
                    charge.currency(), charge.txnId());
        }

        @Override
        public String lateFailure(String eventId, ProviderRetrySimulator.Charge charge) {
            return Callbacks.event(eventId, "PAYMENT_FAILED", charge.orderId(), charge.amount(), charge.currency(),
                    charge.txnId());
        }

        @Override
        public Map<String, String> headers(String body, long epochSecond) {
            return Map.of(SignatureVerifier.HEADER, Callbacks.signature(Callbacks.SECRET, epochSecond, body));
        }
    }

    /** Stripe's events, signed as Stripe signs each delivery; a late {@code payment_intent.payment_failed}. */
    private static final class Stripe implements ProviderRetrySimulator.Provider {
        @Override
        public String name() {
            return "stripe";
        }

        @Override
        public List<Duration> schedule() {
            return ProviderRetrySimulator.STRIPE_SCHEDULE;
        }

        @Override
        public String newEventId() {
            return "evt_" + UUID.randomUUID().toString().replace("-", "");
        }

        @Override
        public String success(String eventId, ProviderRetrySimulator.Charge charge) {
            return StripeFixtures.event(eventId, "payment_intent.succeeded", StripeFixtures.intent(charge.reference(),
                    "succeeded", String.valueOf(charge.amount()), charge.currency().toLowerCase(Locale.ROOT),
                    charge.txnId()));
        }

        @Override
        public String lateFailure(String eventId, ProviderRetrySimulator.Charge charge) {
            return StripeFixtures.event(eventId, "payment_intent.payment_failed", StripeFixtures.failedIntent(
                    charge.reference(), String.valueOf(charge.amount()), charge.currency().toLowerCase(Locale.ROOT),
                    "card_declined"));
        }

        @Override
        public Map<String, String> headers(String body, long epochSecond) {
            return Map.of("Stripe-Signature", StripeFixtures.signature(StripeFixtures.SECRET, epochSecond, body));
        }
    }

    /**
     * WeChat Pay's notifications: the transaction encrypted with the APIv3 key, the body signed with the platform
     * key. WeChat sends no failure notifications for Native payments (a closed order is learnt by querying it).
     */
    private static final class Wechat implements ProviderRetrySimulator.Provider {
        private final WechatFixtures wechat;

        Wechat(WechatFixtures wechat) {
            this.wechat = wechat;
        }

        @Override
        public String name() {
            return "wechatpay";
        }

        @Override
        public List<Duration> schedule() {
            return ProviderRetrySimulator.WECHAT_SCHEDULE;
        }

        @Override
        public String newEventId() {
            return UUID.randomUUID().toString();
        }

        @Override
        public String success(String eventId, ProviderRetrySimulator.Charge charge) {
            return wechat.notification(eventId, "TRANSACTION.SUCCESS", "transaction", WechatFixtures.transaction(
                    charge.reference(), charge.txnId(), "SUCCESS", String.valueOf(charge.amount())));
        }

        @Override
        public String lateFailure(String eventId, ProviderRetrySimulator.Charge charge) {
            return null;
        }

        @Override
        public Map<String, String> headers(String body, long epochSecond) {
            return wechat.headers(body, epochSecond);
        }
    }
}
