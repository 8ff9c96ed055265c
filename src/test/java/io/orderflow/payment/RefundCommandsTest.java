package io.orderflow.payment;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.orderflow.payment.commands.ProviderCommands;
import io.orderflow.payment.workers.RefundWorker;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.stripe.StripeProvider;
import io.orderflow.payment.wechatpay.WechatFixtures;
import io.orderflow.support.Auth;
import io.orderflow.support.Callbacks;
import io.orderflow.support.Sql;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Refunds the service owes, as durable commands: written in the statement of the decision that owes them, sent by
 * the worker once in effect (the command's own Idempotency-Key on every try), with Stripe played by WireMock.
 */
@QuarkusTest
@WithTestResource(PaymentSandbox.class)
class RefundCommandsTest extends SandboxedProviderTest {

    @Inject
    RefundWorker worker;

    @Inject
    ProviderCommands providerCommands;

    @Override
    protected String provider() {
        return StripeProvider.NAME;
    }

    private static Response stripe(String payload) {
        return given().contentType("application/json; charset=utf-8")
                .header("Stripe-Signature", StripeFixtures.signature(StripeFixtures.SECRET,
                        Instant.now().getEpochSecond(), payload))
                .body(payload.getBytes(StandardCharsets.UTF_8)).post("/payments/stripe/callbacks");
    }

    /** An order paid through Stripe: PAY (PaymentIntent {@code intent}), then its signed success with {@code charge}. */
    private String paidWithStripe(String intent, String charge) {
        String id = createOrder();
        server.stubFor(post("/v1/payment_intents").willReturn(okJson(StripeFixtures.intent(intent,
                "requires_payment_method", String.valueOf(AMOUNT), "eur", null))));
        postKeyed(id, "pay", Map.of("provider", "stripe"), newKey()).then().statusCode(200);
        stripe(StripeFixtures.event("payment_intent.succeeded", StripeFixtures.intent(intent, "succeeded",
                String.valueOf(AMOUNT), "eur", charge))).then().statusCode(200);
        Auth.operator().get("/orders/" + id).then().body("status", is("PAID"));
        return id;
    }

    private static long commands(String orderId) {
        return Sql.count("select count(*) from provider_commands where order_id = ?", UUID.fromString(orderId));
    }

    private static String commandId(String orderId) {
        return Sql.string("select cast(id as text) from provider_commands where order_id = ?", UUID.fromString(orderId));
    }

    private List<LoggedRequest> refundsSent() {
        return server.findAll(postRequestedFor(urlEqualTo("/v1/refunds")));
    }

    /**
     * One pass of the worker, which serves every due command of the shared test database: other classes' commands
     * (whose provider stubs are gone, so each would wait out its call timeout) are put off first, so that the pass
     * reaches this test's command.
     */
    private int runWorker(String orderId) {
        return SandboxCalls.runWorker(worker, orderId);
    }

    private static void putOthersOff(String orderId) {
        Sql.update("update provider_commands set next_at = now() + interval '1 day' where state in ('PENDING', 'SENT')"
                + " and order_id <> ?", UUID.fromString(orderId));
    }

    private static <T> T onContext(Supplier<Uni<T>> work) {
        try {
            return VertxContextSupport.subscribeAndAwait(work);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** This test's command, claimed as a replica's pass claims it. */
    private ProviderCommands.Refund claim(String orderId) {
        putOthersOff(orderId);
        List<ProviderCommands.Refund> claimed = onContext(() -> providerCommands.claimDue(Instant.now(),
                Duration.ofSeconds(60), 1));
        assertEquals(1, claimed.size());
        return claimed.get(0);
    }

    @Test
    void shouldLeaveTheOutcomeOfANewerClaimWhenAReplicaWhoseLeaseRanOutSettlesLate() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String id = paidWithStripe("pi_fence_" + suffix, "ch_fence_" + suffix);
        post(id, "cancel", Map.of()).then().statusCode(200);
        ProviderCommands.Refund stale = claim(id);
        // the first replica's call outlives its lease: another replica claims the command and gets it done
        Sql.update("update provider_commands set next_at = now() - interval '1 second' where order_id = ?",
                UUID.fromString(id));
        ProviderCommands.Refund fresh = claim(id);
        Instant now = Instant.now();
        assertTrue(onContext(() -> providerCommands.settle(fresh.id(), fresh.claim(), "DONE", "re_" + suffix,
                "PROCESSED", null, now)));

        boolean settled = onContext(() -> providerCommands.settle(stale.id(), stale.claim(), "SENT", null,
                "UNDEFINED timeout", now.plusSeconds(1), now.plusSeconds(1)));

        assertFalse(settled, "the stale claim's outcome is refused");
        assertEquals("DONE", Sql.string("select state from provider_commands where order_id = ?", UUID.fromString(id)));
        assertEquals("re_" + suffix, Sql.string("select refund_id from provider_commands where order_id = ?",
                UUID.fromString(id)));
    }

    @Test
    void shouldLeaveACommandForAnotherReplicaWhenThisOneDoesNotOfferItsProvider() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String id = paidWithStripe("pi_absent_" + suffix, "ch_absent_" + suffix);
        post(id, "cancel", Map.of()).then().statusCode(200);
        // as if the command had been written by a replica configured for a provider this one is not (yet)
        Sql.update("update provider_commands set provider = 'acmepay' where order_id = ?", UUID.fromString(id));
        try {
            // the database's clock before the worker's round: the retry is due after it, whenever this test looks (its
            // delay has full jitter, so it may be a few milliseconds and already past)
            String beforeRound = Sql.string("select cast(clock_timestamp() as text)");
            runWorker(id);

            assertEquals("SENT", Sql.string("select state from provider_commands where order_id = ?",
                    UUID.fromString(id)), "owed still, due again later: not FAILED for good");
            assertEquals(1, Sql.count("select count(*) from provider_commands where order_id = ? and next_at > cast(?"
                    + " as timestamptz)", UUID.fromString(id), beforeRound), "tried again after a delay, not at once");
        } finally {
            // the replica that has the provider's settings takes it (for the invariant checker: the capture's provider)
            Sql.update("update provider_commands set provider = 'stripe' where order_id = ?", UUID.fromString(id));
        }
    }

    @Test
    void shouldSendNoSecondRefundWhenTheLookUpPastTheKeyWindowIsRateLimited() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String charge = "ch_busy_" + suffix;
        String intent = "pi_busy_" + suffix;
        String command = cancelledADayAgo(intent, charge, null, false, null);
        String id = orderOf(command);
        server.stubFor(WireMock.get(urlPathEqualTo("/v1/refunds"))
                .willReturn(aResponse().withStatus(429).withHeader("Content-Type", "application/json")
                        .withBody("{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"rate_limit\","
                                + "\"message\":\"Too many requests\"}}")));
        server.stubFor(post("/v1/refunds").willReturn(okJson(StripeFixtures.refund("re_" + suffix, charge, intent,
                String.valueOf(AMOUNT), "succeeded", command))));

        runWorker(id);

        assertEquals(0, refundsSent().size(), "a look-up that got no answer is not \"no refund\": nothing is sent");
        assertEquals("SENT", Sql.string("select state from provider_commands where order_id = ?",
                UUID.fromString(id)), "asked again later");
    }

    /** A look-up Stripe refuses (a revoked key) says nothing about the refund: owed still, nothing sent (issue 43). */
    @Test
    void shouldKeepARefundOwedAndSendNothingWhenTheLookUpPastTheKeyWindowIsRefused() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String charge = "ch_revoked_" + suffix;
        String command = cancelledADayAgo("pi_revoked_" + suffix, charge, null, false, null);
        String id = orderOf(command);
        server.stubFor(WireMock.get(urlPathEqualTo("/v1/refunds")).willReturn(StripeFixtures.error(401,
                "invalid_request_error", null)));

        runWorker(id);

        assertEquals(0, refundsSent().size());
        assertEquals("SENT", Sql.string("select state from provider_commands where id = ?", UUID.fromString(command)));
        assertEquals("PENDING", Sql.string("select status from refunds where id = ?", UUID.fromString(command)),
                "a refused look-up is no refusal of the refund");
    }

    /** Stripe lists 100 refunds a page: the command's on a later page is found, not sent again (issue 43). */
    @Test
    void shouldFindTheCommandsRefundOnALaterPageInsteadOfSendingItAgain() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String charge = "ch_paged_" + suffix;
        String intent = "pi_paged_" + suffix;
        String command = cancelledADayAgo(intent, charge, null, false, null);
        String id = orderOf(command);
        String other = UUID.randomUUID().toString();
        server.stubFor(WireMock.get(urlPathEqualTo("/v1/refunds")).withQueryParam("charge", equalTo(charge))
                .withQueryParam("starting_after", absent()).willReturn(okJson("{\"object\":\"list\",\"data\":["
                        + StripeFixtures.refund("re_p1_" + suffix, charge, intent, "1", "succeeded", other)
                        + "],\"has_more\":true,\"url\":\"/v1/refunds\"}")));
        server.stubFor(WireMock.get(urlPathEqualTo("/v1/refunds")).withQueryParam("starting_after",
                equalTo("re_p1_" + suffix)).willReturn(okJson("{\"object\":\"list\",\"data\":["
                        + StripeFixtures.refund("re_" + suffix, charge, intent, String.valueOf(AMOUNT), "succeeded",
                                command) + "],\"has_more\":false,\"url\":\"/v1/refunds\"}")));

        runWorker(id);

        assertEquals(0, refundsSent().size(), "the refund was found on the second page: nothing is sent again");
        assertEquals("re_" + suffix, Sql.string("select refund_id from provider_commands where id = ?",
                UUID.fromString(command)));
    }

    @Test
    void shouldOweOneRefundCommandWhenAPaidOrderIsCancelledAndSendItOnceKeyedByTheCommand() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String charge = "ch_cancel_" + suffix;
        String intent = "pi_cancel_" + suffix;
        String id = paidWithStripe(intent, charge);
        post(id, "cancel", Map.of()).then().statusCode(200).body("status", is("REFUND_PENDING"));
        post(id, "cancel", Map.of()).then().statusCode(200);
        assertEquals(1, commands(id), "one command per capture, however often the cancel is repeated");
        String command = commandId(id);
        server.stubFor(post("/v1/refunds").willReturn(okJson(StripeFixtures.refund("re_" + suffix, charge, intent,
                String.valueOf(AMOUNT), "succeeded", command))));

        runWorker(id);
        runWorker(id);

        server.verify(1, postRequestedFor(urlEqualTo("/v1/refunds"))
                .withHeader("Idempotency-Key", equalTo("orderflow-refund-" + command))
                .withFormParam("charge", equalTo(charge)).withFormParam("amount", equalTo(String.valueOf(AMOUNT))));
        assertEquals("DONE", Sql.string("select state from provider_commands where order_id = ?",
                UUID.fromString(id)));
        stripe(StripeFixtures.event("charge.refunded", StripeFixtures.charge(charge, intent, String.valueOf(AMOUNT),
                String.valueOf(AMOUNT), true))).then().statusCode(200);
        Auth.operator().get("/orders/" + id).then().body("status", is("REFUNDED"));
    }

    @Test
    void shouldPayWithWechatNativeRefundOnCancelOnceByTheCommandsOutRefundNoAndCloseOnRefundSuccess() {
        breakers.reset("wechatpay");
        String customer = newCustomer();
        String id = Auth.customer(customer).contentType(ContentType.JSON)
                .header("Idempotency-Key", newKey()).body(Map.of("customerId", customer, "currency", "CNY",
                        "items", List.of(Map.of("sku", "SKU-1", "quantity", 1, "unitPrice", 2500))))
                .post("/orders").then().statusCode(201).extract().path("id");
        server.stubFor(post("/v3/pay/transactions/native")
                .willReturn(okJson("{\"code_url\":\"weixin://wxpay/bizpayurl?pr=refund\"}")));
        String attempt = Auth.customer(customer).contentType(ContentType.JSON)
                .header("Idempotency-Key", newKey()).body(Map.of("provider", "wechatpay"))
                .post("/orders/" + id + "/pay").then().statusCode(200).extract().path("payment.attemptId");
        String outTradeNo = attempt.replace("-", "");
        String transaction = "42" + outTradeNo.substring(0, 20);
        wechat("EV-pay-" + outTradeNo, "TRANSACTION.SUCCESS", "transaction", WechatFixtures.transaction(outTradeNo, transaction, "SUCCESS",
                "2500"));
        Auth.operator().get("/orders/" + id).then().body("status", is("PAID"));

        Auth.customer(customer).contentType(ContentType.JSON).body(Map.of())
                .post("/orders/" + id + "/cancel").then().statusCode(200).body("status", is("REFUND_PENDING"));
        String outRefundNo = commandId(id).replace("-", "");
        String refundId = "5030" + outTradeNo.substring(0, 10);
        server.stubFor(post("/v3/refund/domestic/refunds").willReturn(okJson("{\"refund_id\":\"" + refundId
                + "\",\"out_refund_no\":\"" + outRefundNo + "\",\"transaction_id\":\"" + transaction
                + "\",\"out_trade_no\":\"" + outTradeNo + "\",\"channel\":\"ORIGINAL\",\"status\":\"PROCESSING\","
                + "\"create_time\":\"2026-01-15T18:05:00+08:00\",\"amount\":{\"total\":2500,\"refund\":2500,"
                + "\"payer_total\":2500,\"payer_refund\":2500,\"currency\":\"CNY\"}}")));

        runWorker(id);
        runWorker(id);

        server.verify(1, postRequestedFor(urlEqualTo("/v3/refund/domestic/refunds"))
                .withRequestBody(matchingJsonPath("$.out_refund_no", equalTo(outRefundNo)))
                .withRequestBody(matchingJsonPath("$.transaction_id", equalTo(transaction))));
        assertEquals("DONE", Sql.string("select state from provider_commands where order_id = ?",
                UUID.fromString(id)));
        Auth.operator().get("/orders/" + id).then().body("status", is("REFUND_PENDING"));
        for (int delivery = 0; delivery < 3; delivery++) { // WeChat re-sends until it reads a 2xx
            wechat("EV-refund-" + outTradeNo, "REFUND.SUCCESS", "refund", WechatFixtures.refund(outTradeNo, transaction, outRefundNo, refundId,
                    "SUCCESS", "2500"));
        }
        Auth.operator().get("/orders/" + id).then().body("status", is("REFUNDED"));
        assertEquals(1, Sql.count("select count(*) from order_transitions where order_id = ? and event ="
                + " 'REFUND_SUCCEEDED'", UUID.fromString(id)));
    }

    private void wechat(String notificationId, String eventType, String summary, String resource) {
        SandboxCalls.wechat(sandbox, notificationId, eventType, summary, resource);
    }

    /**
     * A Stripe order cancelled with its refund command sent more than a day ago, answer lost: Stripe no longer knows
     * the Idempotency-Key, so a new POST would refund again. Stripe's refunds of the charge list {@code other} (if
     * any) and, when {@code refunded}, the command's own refund {@code refundId}. Returns the command's id.
     */
    private String cancelledADayAgo(String intent, String charge, String other, boolean refunded, String refundId) {
        String id = paidWithStripe(intent, charge);
        post(id, "cancel", Map.of()).then().statusCode(200);
        String command = commandId(id);
        Sql.update("update provider_commands set state = 'SENT', tries = 3, created_at = now() - interval '25 hours',"
                + " next_at = now() - interval '1 second' where order_id = ?", UUID.fromString(id));
        List<String> listed = new ArrayList<>();
        if (other != null) {
            listed.add(other);
        }
        if (refunded) {
            listed.add(StripeFixtures.refund(refundId, charge, intent, String.valueOf(AMOUNT), "succeeded", command));
        }
        server.stubFor(WireMock.get(urlPathEqualTo("/v1/refunds"))
                .withQueryParam("charge", equalTo(charge)).willReturn(okJson("{\"object\":\"list\",\"data\":["
                        + String.join(",", listed) + "],\"has_more\":false,\"url\":\"/v1/refunds\"}")));
        return command;
    }

    private static String orderOf(String command) {
        return Sql.string("select cast(order_id as text) from provider_commands where id = ?",
                UUID.fromString(command));
    }

    @Test
    void shouldLookARefundUpInsteadOfSendingItAgainOnceStripeHasForgottenItsKey() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String charge = "ch_old_" + suffix;
        String intent = "pi_old_" + suffix;
        String command = cancelledADayAgo(intent, charge, StripeFixtures.refund("re_other_" + suffix, charge, intent,
                "100", "succeeded", "someone-else"), true, "re_" + suffix);
        String id = orderOf(command);

        runWorker(id);

        assertEquals(0, refundsSent().size(), "the refund was found: nothing is sent again");
        assertEquals("DONE", Sql.string("select state from provider_commands where order_id = ?",
                UUID.fromString(id)));
        assertEquals("re_" + suffix, Sql.string("select refund_id from provider_commands where order_id = ?",
                UUID.fromString(id)));
    }

    @Test
    void shouldSendARefundThatALookUpPastTheKeyWindowDoesNotFind() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String charge = "ch_lost_" + suffix;
        String intent = "pi_lost_" + suffix;
        String command = cancelledADayAgo(intent, charge, null, false, null);
        String id = orderOf(command);
        server.stubFor(post("/v1/refunds").willReturn(okJson(StripeFixtures.refund("re_" + suffix, charge, intent,
                String.valueOf(AMOUNT), "succeeded", command))));

        runWorker(id);

        assertEquals(1, refundsSent().size(), "nothing was refunded for the command: it is sent, once");
        assertEquals("DONE", Sql.string("select state from provider_commands where order_id = ?",
                UUID.fromString(id)));
    }

    @Test
    void shouldRetryATimedOutRefundLaterWithTheSameKeySoStripeRefundsOnce() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String charge = "ch_slow_" + suffix;
        String intent = "pi_slow_" + suffix;
        String id = paidWithStripe(intent, charge);
        post(id, "cancel", Map.of()).then().statusCode(200);
        String command = commandId(id);
        String refund = StripeFixtures.refund("re_" + suffix, charge, intent, String.valueOf(AMOUNT), "succeeded",
                command);
        // every try of the first run times out: Stripe may or may not have refunded
        server.stubFor(post("/v1/refunds").willReturn(okJson(refund).withFixedDelay(1500)));

        runWorker(id);

        List<LoggedRequest> sent = refundsSent();
        assertEquals("SENT", Sql.string("select state from provider_commands where order_id = ?", UUID.fromString(id)),
                "an answer that never came: the outcome is unknown, the command stays owed");
        // the backoff has passed (or the replica that claimed it died and its lease ran out)
        Sql.update("update provider_commands set next_at = now() - interval '1 second' where order_id = ?",
                UUID.fromString(id));
        server.stubFor(post("/v1/refunds").willReturn(okJson(refund).withHeader("Idempotent-Replayed", "true")));
        runWorker(id);

        assertEquals("DONE", Sql.string("select state from provider_commands where order_id = ?",
                UUID.fromString(id)));
        assertEquals(1, refundsSent().stream().map(r -> r.getHeader("Idempotency-Key")).distinct().count(),
                "every try carries the command's key, so Stripe makes one refund: " + refundsSent().size() + " tries");
        assertEquals(sent.size() + 1, refundsSent().size());
    }

    @Test
    void shouldOweARefundCommandForADoubleCapture() {
        String id = createOrder();
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        Callbacks.deliver(Callbacks.success(id, AMOUNT, "EUR", "txn-own-" + id)).then().statusCode(200);
        Callbacks.deliver(Callbacks.success(id, AMOUNT, "EUR", "txn-again-" + id)).then().statusCode(200)
                .body("outcome", is("double-capture"));
        assertEquals(1, commands(id));
        assertEquals("txn-again-" + id, Sql.string("select capture_txn_id from provider_commands where order_id = ?",
                UUID.fromString(id)));
        assertEquals("PAID", Sql.string("select status from orders where id = ?", UUID.fromString(id)));
    }
}
