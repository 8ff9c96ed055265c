package io.orderflow.payment;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.github.tomakehurst.wiremock.client.WireMock;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.stripe.StripeProvider;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Copies of one PAY that nothing in front of PostgreSQL keeps apart, as on two replicas while Redis is down: no
 * Redis shutter and no same-replica shortcut here, so every copy creates (finds) the provider payment and runs the
 * compare-and-set itself. The copies that lose must neither cancel the payment the winner handed to the shopper nor
 * answer anything other than the winner's answer.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(ConcurrentPayTest.NothingInFrontOfPostgres.class)
@WithTestResource(PaymentSandbox.class)
class ConcurrentPayTest extends SandboxedProviderTest {

    public static class NothingInFrontOfPostgres implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("idempotency.redis.enabled", "false", "idempotency.replica.max-entries", "0");
        }
    }

    @Inject
    StripeProvider stripe;

    @Override
    protected String provider() {
        return StripeProvider.NAME;
    }

    /**
     * A first call through stripe-java in a fresh JVM can outlast the sandbox's 1 s call timeout (class loading):
     * made once before the race, so that the race's timeouts and retries are the race's own.
     */
    @BeforeEach
    void warmUpStripeJava() {
        server.stubFor(WireMock.get("/v1/payment_intents/pi_warm_up")
                .willReturn(okJson(StripeFixtures.intent("pi_warm_up", "requires_payment_method", "1", "eur", null))));
        await(stripe.queryPayment("pi_warm_up"));
        restart();
    }

    @Test
    void shouldNeverCancelThePaymentIntentTheWinnerHandedOutWhenCopiesOfOnePayRace() {
        String id = createOrder();
        String intent = "pi_race_" + id.substring(0, 8);
        // Stripe takes a moment: every copy reads the order as CREATED and asks for the (same, keyed) intent
        server.stubFor(post("/v1/payment_intents").willReturn(okJson(StripeFixtures.intent(intent,
                "requires_payment_method", String.valueOf(AMOUNT), "eur", null)).withFixedDelay(250)));
        server.stubFor(WireMock.get("/v1/payment_intents/" + intent).willReturn(okJson(StripeFixtures.intent(intent,
                "requires_payment_method", String.valueOf(AMOUNT), "eur", null))));
        server.stubFor(post(urlPathMatching("/v1/payment_intents/.*/cancel")).willReturn(okJson(
                StripeFixtures.intent(intent, "canceled", String.valueOf(AMOUNT), "eur", null))));
        String key = newKey();

        // a 503 (Stripe did not answer in time, on a busy machine) is retried with the same key, as a client does
        List<Response> answers = Parallel.run(4, i -> {
            Response answer = postKeyed(id, "pay", Map.of("provider", "stripe"), key);
            for (int retry = 0; retry < 5 && answer.statusCode() == 503; retry++) {
                answer = postKeyed(id, "pay", Map.of("provider", "stripe"), key);
            }
            return answer;
        });

        server.verify(0, postRequestedFor(urlPathMatching("/v1/payment_intents/.*/cancel")));
        assertEquals(0, Sql.count("select count(*) from provider_commands where order_id = ? and kind = 'CANCEL'",
                UUID.fromString(id)), "no copy owes a cancel of the payment the winner handed out");
        String attempt = Sql.string("select cast(id as text) from payment_attempts where order_id = ?",
                UUID.fromString(id));
        for (Response answer : answers) {
            assertEquals(200, answer.statusCode(), answer.asString());
            assertEquals("PAYMENT_PENDING", answer.path("status"));
            assertEquals(attempt, answer.path("payment.attemptId"), answer.asString());
            assertEquals(intent, answer.path("payment.providerReference"), answer.asString());
            assertEquals(intent + "_secret_s3cr3t", answer.path("payment.clientSecret"), answer.asString());
        }
        assertEquals(1, Sql.count("select count(*) from payment_attempts where order_id = ? and state = 'PENDING'",
                UUID.fromString(id)));
        assertEquals(1, Sql.historyCount(id, "PAY"));
        assertEquals(List.of(), Sql.violations(List.of(id)));
    }
}
