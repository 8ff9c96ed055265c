package io.orderflow.payment.stripe;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static io.orderflow.payment.stripe.StripeFixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.github.tomakehurst.wiremock.http.Fault;
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
 * Stripe's API played by a real HTTP server answering as Stripe documents it, including its failures; the tests
 * assert what the adapter sent (key, form fields, Idempotency-Key) and the outcome status it came to.
 */
@QuarkusTest
@WithTestResource(PaymentSandbox.class)
class StripeProviderTest extends SandboxedProviderTest {

    @Inject
    StripeProvider stripe;

    @Override
    protected String provider() {
        return StripeProvider.NAME;
    }

    private static PaymentRequest payment() {
        return new PaymentRequest(UUID.randomUUID(), UUID.randomUUID(), 2500, "EUR", "Order");
    }

    private List<LoggedRequest> intentsCreated() {
        return server.findAll(postRequestedFor(urlEqualTo("/v1/payment_intents")));
    }

    @Test
    void shouldCreateAPaymentIntentKeyedByTheAttemptAndHandOverItsClientSecret() {
        PaymentRequest request = payment();
        server.stubFor(post("/v1/payment_intents").willReturn(okJson(intent("pi_A", "requires_payment_method",
                "2500", "eur", null))));
        ProviderOutcome<PaymentSession> outcome = await(stripe.createPayment(request));
        assertEquals(Status.PENDING, outcome.status());
        assertEquals("pi_A", outcome.value().reference());
        assertEquals("pi_A_secret_s3cr3t", outcome.value().customerAction().reveal());
        assertFalse(outcome.toString().contains("s3cr3t"), "the client secret never prints");
        server.verify(1, postRequestedFor(urlEqualTo("/v1/payment_intents"))
                .withHeader("Authorization", equalTo("Bearer " + API_KEY))
                .withHeader("Idempotency-Key", equalTo("orderflow-attempt-" + request.attemptId()))
                .withFormParam("amount", equalTo("2500")).withFormParam("currency", equalTo("eur"))
                .withFormParam("metadata[order_id]", equalTo(request.orderId().toString()))
                .withFormParam("metadata[attempt_id]", equalTo(request.attemptId().toString())));
    }

    @Test
    void shouldSendTheSameIdempotencyKeyWhenACreateTimesOutAndReadStripesReplay() {
        PaymentRequest request = payment();
        String created = intent("pi_B", "requires_payment_method", "2500", "eur", null);
        server.stubFor(post("/v1/payment_intents").inScenario("lost answer").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(okJson(created).withFixedDelay(1500)).willSetStateTo("replaying"));
        server.stubFor(post("/v1/payment_intents").inScenario("lost answer").whenScenarioStateIs("replaying")
                .willReturn(okJson(created).withHeader("Idempotent-Replayed", "true")));
        assertEquals("pi_B", await(stripe.createPayment(request)).value().reference());
        // a retried PAY: the same attempt, so the same key, and Stripe replays the same intent
        assertEquals("pi_B", await(stripe.createPayment(request)).value().reference());
        List<LoggedRequest> sent = intentsCreated();
        assertEquals(3, sent.size());
        assertEquals(1, sent.stream().map(r -> r.getHeader("Idempotency-Key")).distinct().count());
    }

    @Test
    void shouldCallATimeoutUndefinedAfterRetryingWithTheSameKey() {
        server.stubFor(post("/v1/payment_intents").willReturn(okJson("{}").withFixedDelay(1500)));
        ProviderOutcome<PaymentSession> outcome = await(stripe.createPayment(payment()));
        assertEquals(Status.UNDEFINED, outcome.status());
        assertEquals(3, intentsCreated().size(), "the first call and two retries");
        assertEquals(1, intentsCreated().stream().map(r -> r.getHeader("Idempotency-Key")).distinct().count());
    }

    @Test
    void shouldRetryA5xxAndSettleOnTheAnswerThatFollows() {
        server.stubFor(post("/v1/payment_intents").inScenario("blip").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(StripeFixtures.error(500, "api_error", null)).willSetStateTo("up"));
        server.stubFor(post("/v1/payment_intents").inScenario("blip").whenScenarioStateIs("up")
                .willReturn(okJson(intent("pi_C", "requires_payment_method", "2500", "eur", null))));
        assertEquals(Status.PENDING, await(stripe.createPayment(payment())).status());
        assertEquals(2, intentsCreated().size());
    }

    @Test
    void shouldCallPersistent5xxAndResetConnectionsUndefined() {
        server.stubFor(post("/v1/payment_intents").willReturn(StripeFixtures.error(500, "api_error", null)));
        assertEquals(Status.UNDEFINED, await(stripe.createPayment(payment())).status());
        restart();
        server.stubFor(post("/v1/payment_intents").willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)));
        assertEquals(Status.UNDEFINED, await(stripe.createPayment(payment())).status());
    }

    @Test
    void shouldNotRetryAFinalNoAndCallItError() {
        server.stubFor(post("/v1/payment_intents").willReturn(StripeFixtures.error(400, "invalid_request_error",
                "amount_too_small")));
        ProviderOutcome<PaymentSession> outcome = await(stripe.createPayment(payment()));
        assertEquals(Status.ERROR, outcome.status());
        assertEquals("amount_too_small", outcome.code());
        assertEquals(1, intentsCreated().size());
    }

    @Test
    void shouldCallRateLimitingCanceledNothingHappened() {
        server.stubFor(post("/v1/payment_intents").willReturn(StripeFixtures.error(429, "invalid_request_error",
                "rate_limit")));
        assertEquals(Status.CANCELED, await(stripe.createPayment(payment())).status());
    }

    @Test
    void shouldOpenTheCircuitAfterRepeatedFailuresAndSendNothingWhileOpen() {
        server.stubFor(post("/v1/payment_intents").willReturn(StripeFixtures.error(503, "api_error", null)));
        await(stripe.createPayment(payment()));
        await(stripe.createPayment(payment()));
        int sent = intentsCreated().size();
        ProviderOutcome<PaymentSession> outcome = await(stripe.createPayment(payment()));
        assertEquals(Status.CANCELED, outcome.status());
        assertEquals("circuit-open", outcome.code());
        assertEquals(sent, intentsCreated().size(), "an open breaker sends nothing");
        assertEquals(Status.CANCELED, await(stripe.queryPayment("pi_X")).status(), "one breaker for all calls");
    }

    @Test
    void shouldReadACapturedIntentStrictly() {
        server.stubFor(get("/v1/payment_intents/pi_D").willReturn(okJson(intent("pi_D", "succeeded", "2500", "eur",
                "ch_D"))));
        ProviderOutcome<PaymentState> paid = await(stripe.queryPayment("pi_D"));
        assertEquals(Status.PROCESSED, paid.status());
        assertEquals(new PaymentState("pi_D", "ch_D", 2500L, "EUR", null), paid.value());
        server.stubFor(get("/v1/payment_intents/pi_E").willReturn(okJson(intent("pi_E", "succeeded", "\"2500\"",
                "eur", "ch_E"))));
        assertEquals(Status.UNDEFINED, await(stripe.queryPayment("pi_E")).status(), "\"2500\" is no amount");
        server.stubFor(get("/v1/payment_intents/pi_F").willReturn(okJson(failedIntent("pi_F", "2500", "eur",
                "insufficient_funds"))));
        assertEquals(Status.ERROR, await(stripe.queryPayment("pi_F")).status());
        server.stubFor(get("/v1/payment_intents/pi_G").willReturn(okJson(intent("pi_G", "processing", "2500", "eur",
                null))));
        assertEquals(Status.PENDING, await(stripe.queryPayment("pi_G")).status());
    }

    @Test
    void shouldCancelAnIntent() {
        server.stubFor(post("/v1/payment_intents/pi_H/cancel").willReturn(okJson(intent("pi_H", "canceled", "2500",
                "eur", null))));
        assertEquals(Status.PROCESSED, await(stripe.cancelPayment("pi_H")).status());
        server.verify(1, postRequestedFor(urlEqualTo("/v1/payment_intents/pi_H/cancel")));
    }

    @Test
    void shouldRefundACaptureKeyedAndLabelledByTheCommand() {
        RefundRequest request = new RefundRequest(UUID.randomUUID(), "pi_I", "ch_I", 2500, "EUR", null);
        server.stubFor(post("/v1/refunds").willReturn(okJson(refund("re_I", "ch_I", "pi_I", "2500", "succeeded",
                request.commandId().toString()))));
        ProviderOutcome<RefundState> outcome = await(stripe.createRefund(request));
        assertEquals(Status.PROCESSED, outcome.status());
        assertEquals(new RefundState("re_I", "ch_I", 2500L, "EUR", null), outcome.value());
        server.verify(1, postRequestedFor(urlEqualTo("/v1/refunds"))
                .withHeader("Idempotency-Key", equalTo("orderflow-refund-" + request.commandId()))
                .withFormParam("charge", equalTo("ch_I")).withFormParam("amount", equalTo("2500"))
                .withFormParam("metadata[command_id]", equalTo(request.commandId().toString())));
    }

    /**
     * Only a refusal of the refund itself is a definite no (issue 43): a key Stripe refuses, a restricted key without
     * the right, a charge of another account or mode, a key reused say nothing about the refund; a charge already
     * refunded in full is for a look-up to settle.
     */
    @Test
    void shouldTellARefusalOfTheRefundFromOneThatKeptUsFromAskingAndFromDoneAlready() {
        RefundRequest request = new RefundRequest(UUID.randomUUID(), "pi_K", "ch_K", 2500, "EUR", null);
        List<Object[]> answers = List.of(
                new Object[] {401, "invalid_request_error", null, ProviderOutcome.Refusal.CANNOT_ASK},
                new Object[] {403, "invalid_request_error", "secret_key_required", ProviderOutcome.Refusal.CANNOT_ASK},
                new Object[] {404, "invalid_request_error", "resource_missing", ProviderOutcome.Refusal.CANNOT_ASK},
                new Object[] {400, "idempotency_error", null, ProviderOutcome.Refusal.CANNOT_ASK},
                new Object[] {400, "invalid_request_error", "charge_already_refunded",
                        ProviderOutcome.Refusal.ALREADY_DONE},
                new Object[] {400, "invalid_request_error", "charge_disputed", ProviderOutcome.Refusal.DECLINED},
                new Object[] {400, "invalid_request_error", "amount_too_large", ProviderOutcome.Refusal.DECLINED});
        for (Object[] answer : answers) {
            restart();
            server.stubFor(post("/v1/refunds").willReturn(StripeFixtures.error((int) answer[0], (String) answer[1],
                    (String) answer[2])));
            ProviderOutcome<RefundState> outcome = await(stripe.createRefund(request));
            assertEquals(Status.ERROR, outcome.status(), answer[0] + " " + answer[2]);
            assertEquals(answer[3], outcome.refusal(), answer[0] + " " + answer[2]);
        }
    }

    /** Stripe lists 100 refunds a page at most: the command's may be on a later one (issue 43). */
    @Test
    void shouldFindTheRefundOfACommandOnALaterPageOfTheChargesRefunds() {
        UUID command = UUID.randomUUID();
        String other = UUID.randomUUID().toString();
        server.stubFor(get(urlPathEqualTo("/v1/refunds")).withQueryParam("charge", equalTo("ch_L"))
                .withQueryParam("starting_after", absent()).willReturn(okJson(page(true,
                        refund("re_L1", "ch_L", "pi_L", "100", "succeeded", other),
                        refund("re_L2", "ch_L", "pi_L", "100", "succeeded", other)))));
        server.stubFor(get(urlPathEqualTo("/v1/refunds")).withQueryParam("starting_after", equalTo("re_L2"))
                .willReturn(okJson(page(true, refund("re_L3", "ch_L", "pi_L", "100", "succeeded", other)))));
        server.stubFor(get(urlPathEqualTo("/v1/refunds")).withQueryParam("starting_after", equalTo("re_L3"))
                .willReturn(okJson(page(false, refund("re_L4", "ch_L", "pi_L", "2500", "pending",
                        command.toString())))));

        ProviderOutcome<RefundState> found = await(stripe.queryRefund(new RefundRequest(command, "pi_L", "ch_L", 2500,
                "EUR", null)));

        assertEquals(Status.PENDING, found.status());
        assertEquals("re_L4", found.value().refundId());
        assertEquals(3, server.findAll(getRequestedFor(urlPathEqualTo("/v1/refunds"))).size());
        server.verify(3, getRequestedFor(urlPathEqualTo("/v1/refunds")).withQueryParam("limit", equalTo("100")));
    }

    static String page(boolean hasMore, String... refunds) {
        return "{\"object\":\"list\",\"url\":\"/v1/refunds\",\"has_more\":" + hasMore + ",\"data\":["
                + String.join(",", refunds) + "]}";
    }

    @Test
    void shouldFindTheRefundOfACommandWithoutItsIdOrSayNoneWasMade() {
        UUID command = UUID.randomUUID();
        server.stubFor(get(urlPathEqualTo("/v1/refunds")).withQueryParam("charge", equalTo("ch_J"))
                .willReturn(okJson("{\"object\":\"list\",\"url\":\"/v1/refunds\",\"has_more\":false,\"data\":["
                        + refund("re_other", "ch_J", "pi_J", "2500", "succeeded", UUID.randomUUID().toString()) + ","
                        + refund("re_J", "ch_J", "pi_J", "2500", "pending", command.toString()) + "]}")));
        ProviderOutcome<RefundState> found = await(stripe.queryRefund(new RefundRequest(command, "pi_J", "ch_J",
                2500, "EUR", null)));
        assertEquals(Status.PENDING, found.status());
        assertEquals("re_J", found.value().refundId());
        ProviderOutcome<RefundState> none = await(stripe.queryRefund(new RefundRequest(UUID.randomUUID(), "pi_J",
                "ch_J", 2500, "EUR", null)));
        assertEquals(Status.CANCELED, none.status(), "no refund for that command: safe to send");
    }
}
