package io.orderflow.payment;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.payment.workers.RefundWorker;
import io.orderflow.payment.reconcile.Reconciler;
import io.orderflow.payment.refunds.RefundOutcomes;
import io.orderflow.payment.StripeOrders.Scene;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.stripe.StripeProvider;
import io.orderflow.payment.wechatpay.WechatFixtures;
import io.orderflow.support.Auth;
import io.orderflow.support.Callbacks;
import io.orderflow.support.CapturedLog;
import io.orderflow.support.Concurrently;
import io.orderflow.support.Contract;
import io.orderflow.support.Meters;
import io.orderflow.support.Sql;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import io.orderflow.support.Await;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletableFuture;
import io.orderflow.support.RowLocks;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Refunds as an operation (issue 33): partial and repeated refunds of one capture through Stripe (played by
 * WireMock), each one provider refund keyed by the refund; an over-refund refused in the statement that would record
 * it; failed refunds surfaced and owed again.
 */
@QuarkusTest
@WithTestResource(PaymentSandbox.class)
class RefundsTest extends SandboxedProviderTest {

    private static final long CAPTURED = 4000;

    @Inject
    RefundWorker worker;

    @Inject
    MeterRegistry registry;

    @Inject
    Reconciler reconciler;

    @Override
    protected String provider() {
        return StripeProvider.NAME;
    }

    private static Response stripe(String payload) {
        return StripeOrders.webhook(payload);
    }

    private static Response refund(String orderId, long amount, String key) {
        return StripeOrders.refund(orderId, amount, key);
    }

    /** Stripe answers a refund of {@code amount} with refund {@code refundId}, still pending. */
    private void stripeRefunds(long amount, String refundId, String charge, String intent) {
        server.stubFor(post("/v1/refunds").withRequestBody(containing("amount=" + amount))
                .willReturn(okJson(StripeFixtures.refund(refundId, charge, intent, String.valueOf(amount), "pending",
                        "(set by the request)"))));
    }

    /** Stripe's event about refund {@code refundId}, made for refund {@code ours} of ours (its metadata). */
    private static Response refundEvent(String type, String refundId, String charge, String intent, long amount,
            String status, String ours) {
        return stripe(StripeFixtures.event("evt_" + UUID.randomUUID(), type, StripeFixtures.refund(refundId, charge,
                intent, String.valueOf(amount), status, ours)));
    }

    private void runWorker(String orderId) {
        SandboxCalls.runWorker(worker, orderId);
    }

    /** An order of 4000 paid (or delivered) through Stripe with its own charge and intent, named after {@code name}. */
    private Scene scene(String name, boolean delivered) {
        Scene scene = StripeOrders.paid(server, name, CAPTURED);
        if (delivered) {
            post(scene.orderId(), "ship", shipBody()).then().statusCode(200);
            post(scene.orderId(), "deliver", Map.of()).then().statusCode(200).body("status", is("DELIVERED"));
        }
        return scene;
    }

    /** A refund of {@code amount} issued and sent (Stripe answers it pending as {@code providerRefund}); its id. */
    private String sent(Scene scene, long amount, String providerRefund) {
        stripeRefunds(amount, providerRefund, scene.charge(), scene.intent());
        String refundId = refund(scene.orderId(), amount, newKey()).then().statusCode(202).extract().path("id");
        runWorker(scene.orderId());
        return refundId;
    }

    private List<LoggedRequest> refundsSent() {
        return server.findAll(postRequestedFor(urlEqualTo("/v1/refunds")));
    }

    @Test
    void shouldRefundADeliveredOrderInThreePartsAndMoveItToRefundedWhenTheCaptureIsGivenBack() {
        Scene scene = scene("parts", true);
        String suffix = scene.suffix();
        String charge = scene.charge();
        String intent = scene.intent();
        String id = scene.orderId();
        long[] parts = { 1500, 2000, 500 };
        List<String> ours = new ArrayList<>();
        for (int i = 0; i < parts.length; i++) {
            stripeRefunds(parts[i], "re_" + i + "_" + suffix, charge, intent);
            Response accepted = refund(id, parts[i], newKey());
            accepted.then().statusCode(202).header("Location", startsWith("/orders/" + id + "/refunds/"))
                    .body("status", is("PENDING")).body("amount", is((int) parts[i]))
                    .body("reason", is("returned item"));
            String refundId = accepted.path("id");
            ours.add(refundId);
            runWorker(id);
            refundEvent("refund.updated", "re_" + i + "_" + suffix, charge, intent, parts[i], "succeeded", refundId)
                    .then().statusCode(200);
            Auth.operator().get("/orders/" + id + "/refunds/" + refundId).then().statusCode(200)
                    .body("status", is("SUCCEEDED")).body("providerRefundId", is("re_" + i + "_" + suffix));
            if (i == 1) {
                Auth.operator().get("/orders/" + id).then().body("refundedAmount", is(3500))
                        .body("status", is("DELIVERED"));
                refund(id, 501, newKey()).then().statusCode(409)
                        .body("type", is("https://orderflow.dev/problems/refund-exceeds-capture"));
                assertEquals(2, refundsSent().size(), "an over-refund sends nothing");
            }
        }

        List<LoggedRequest> sent = refundsSent();
        assertEquals(3, sent.size());
        for (int i = 0; i < parts.length; i++) {
            LoggedRequest request = sent.get(i);
            assertEquals("orderflow-refund-" + ours.get(i), request.getHeader("Idempotency-Key"));
            assertEquals(true, request.getBodyAsString().contains("amount=" + parts[i]));
            assertEquals(true, request.getBodyAsString().contains(ours.get(i)), "metadata[command_id] is the refund");
        }
        Auth.operator().get("/orders/" + id).then().body("status", is("REFUNDED")).body("refundedAmount", is(4000));
        Auth.operator().get("/orders/" + id + "/refunds").then().body("items.size()", is(3));
        assertEquals(3, Sql.count("select count(*) from provider_commands where order_id = ?", UUID.fromString(id)));
    }

    @Test
    void shouldAcceptOneOfTenConcurrentFullRefundsAndSendOneProviderRefund() {
        Scene scene = scene("race", false);
        String id = scene.orderId();
        stripeRefunds(CAPTURED, "re_race_" + scene.suffix(), scene.charge(), scene.intent());

        List<Integer> statuses = Concurrently.map(IntStream.range(0, 10).boxed().toList(), 10,
                i -> refund(id, CAPTURED, newKey()).statusCode());
        runWorker(id);

        assertEquals(1, statuses.stream().filter(s -> s == 202).count(), statuses.toString());
        assertEquals(9, statuses.stream().filter(s -> s == 409).count(), statuses.toString());
        assertEquals(1, Sql.count("select count(*) from refunds where order_id = ?", UUID.fromString(id)));
        assertEquals(1, refundsSent().size());
    }

    /** A customer reads the refunds of their order, but not the operator's name and note (issue 43, item 12). */
    @Test
    void shouldShowTheOrdersCustomerOnlyTheirOwnFieldsOfItsRefundsAndOperatorsAll() {
        Scene scene = scene("shown", false);
        String refundId = sent(scene, 1000, "re_shown_" + scene.suffix());
        String customer = Sql.string("select customer_id from orders where id = ?", UUID.fromString(scene.orderId()));
        String path = "/orders/" + scene.orderId() + "/refunds";
        List<String> operatorOnly = List.of("issuedBy", "reason", "captureTxnId", "providerRefundId", "failureReason");

        Map<String, Object> listed = Auth.customer(customer).get(path).then().statusCode(200).extract()
                .jsonPath().getMap("items[0]");
        Map<String, Object> one = Auth.customer(customer).get(path + "/" + refundId).then().statusCode(200)
                .extract().jsonPath().getMap("$");
        Map<String, Object> operators = Auth.operator().get(path + "/" + refundId).then().statusCode(200).extract()
                .jsonPath().getMap("$");

        for (Map<String, Object> shown : List.of(listed, one)) {
            assertEquals(List.of(), operatorOnly.stream().filter(shown::containsKey).toList(), shown.toString());
            assertEquals(List.of(refundId, 1000, "EUR", "PENDING", "stripe"), List.of(shown.get("id"),
                    shown.get("amount"), shown.get("currency"), shown.get("status"), shown.get("provider")));
        }
        assertEquals(List.of("issuedBy", "reason", "captureTxnId", "providerRefundId"),
                operatorOnly.stream().filter(operators::containsKey).toList(), "operators see them all");
    }

    @Test
    void shouldReplayARepeatedRefundRequestAndSendNothingNew() {
        String id = scene("again", false).orderId();
        String key = newKey();
        String first = refund(id, 1000, key).then().statusCode(202).extract().path("id");

        refund(id, 1000, key).then().statusCode(202).body("id", is(first)).header("Idempotent-Replayed", "true");

        assertEquals(1, Sql.count("select count(*) from refunds where order_id = ?", UUID.fromString(id)));
        assertEquals(1, Sql.count("select count(*) from provider_commands where order_id = ?", UUID.fromString(id)));
    }

    @Test
    void shouldRefuseARefundWithoutAKeyFromACustomerOrOfAnUnpaidOrder() {
        String unpaid = createOrder();
        Auth.operator().filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                .body(Map.of("amount", 100, "reason", "goodwill")).post("/orders/" + unpaid + "/refunds").then().statusCode(400)
                .body("type", is("https://orderflow.dev/problems/idempotency-key-missing"));
        Auth.customer(ownerOf(unpaid)).contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(Map.of("amount", 100, "reason", "goodwill")).post("/orders/" + unpaid + "/refunds").then()
                .statusCode(403);
        refund(unpaid, 100, newKey()).then().statusCode(409)
                .body("type", is("https://orderflow.dev/problems/refund-not-allowed"));
        Auth.customer(ownerOf(unpaid)).get("/orders/" + unpaid + "/refunds").then().statusCode(200)
                .body("items.size()", is(0));
    }

    @Test
    void shouldSurfaceARefundFailedByWebhookAndOweItsAmountAgain() {
        Scene scene = scene("fail", true);
        String suffix = scene.suffix();
        String charge = scene.charge();
        String intent = scene.intent();
        String id = scene.orderId();
        String refundId = sent(scene, CAPTURED, "re_fail_" + suffix);
        double failedBefore = Meters.count(registry, RefundOutcomes.METRIC, "provider", "stripe", "status", "failed");

        try (CapturedLog log = CapturedLog.start()) {
            stripe(StripeFixtures.event("evt_" + UUID.randomUUID(), "refund.failed", StripeFixtures.refund("re_fail_"
                    + suffix, charge, intent, String.valueOf(CAPTURED), "failed", refundId)
                    .replace("\"reason\":null", "\"failure_reason\":\"expired_or_canceled_card\""))).then()
                    .statusCode(200);
            assertEquals(1, log.atLeast(Level.WARNING).stream().filter(line -> line.contains(refundId)
                    && line.contains("expired_or_canceled_card")).count(), log.atLeast(Level.WARNING).toString());
        }

        Auth.operator().get("/orders/" + id + "/refunds/" + refundId).then().body("status", is("FAILED"))
                .body("failureReason", is("expired_or_canceled_card"));
        Auth.operator().get("/refunds?status=FAILED&limit=100").then().statusCode(200)
                .body("items.findAll { it.id == '" + refundId + "' }.size()", is(1));
        assertEquals(failedBefore + 1,
                Meters.count(registry, RefundOutcomes.METRIC, "provider", "stripe", "status", "failed"));
        Auth.operator().get("/orders/" + id).then().body("status", is("DELIVERED")).body("refundedAmount", is(0));
        assertOwedAgain(scene);
    }

    @Test
    void shouldSurfaceARefundFailedAsOnlyTheReconcilerFindsOutAndOweItsAmountAgain() {
        Scene scene = scene("quiet", true);
        String suffix = scene.suffix();
        String charge = scene.charge();
        String intent = scene.intent();
        String id = scene.orderId();
        String refundId = sent(scene, 1000, "re_quiet_" + suffix);
        assertEquals("DONE", Sql.string("select state from provider_commands where id = ?", UUID.fromString(refundId)));
        // sent 20 minutes ago; Stripe's refund.failed never arrived, and Stripe now says the refund failed
        Sql.update("update provider_commands set updated_at = now() - interval '20 minutes' where id = ?",
                UUID.fromString(refundId));
        server.stubFor(get(urlPathEqualTo("/v1/refunds/re_quiet_" + suffix)).willReturn(okJson(StripeFixtures.refund(
                "re_quiet_" + suffix, charge, intent, "1000", "failed", refundId)
                .replace("\"reason\":null", "\"failure_reason\":\"lost_or_stolen_card\""))));
        double failedBefore = Meters.count(registry, RefundOutcomes.METRIC, "provider", "stripe", "status", "failed");

        try (CapturedLog log = CapturedLog.start()) {
            reconcile(refundId);
            assertEquals(1, log.atLeast(Level.WARNING).stream().filter(line -> line.contains(refundId)
                    && line.contains("lost_or_stolen_card")).count(), log.atLeast(Level.WARNING).toString());
        }

        Auth.operator().get("/orders/" + id + "/refunds/" + refundId).then().body("status", is("FAILED"))
                .body("failureReason", is("lost_or_stolen_card"));
        Auth.operator().get("/refunds?status=FAILED&limit=100").then()
                .body("items.findAll { it.id == '" + refundId + "' }.size()", is(1));
        assertEquals(failedBefore + 1,
                Meters.count(registry, RefundOutcomes.METRIC, "provider", "stripe", "status", "failed"));
        assertOwedAgain(scene);
    }

    /** The whole capture is owed again: a new refund for it goes out, with a new key. */
    private void assertOwedAgain(Scene scene) {
        String again = sent(scene, CAPTURED, "re_again_" + scene.suffix());
        assertEquals(2, refundsSent().size(), "the amount owed again goes out as a new refund with a new key");
        assertEquals("orderflow-refund-" + again, refundsSent().get(1).getHeader("Idempotency-Key"));
    }

    /** One reconciliation run about refund {@code refundId} only: whatever else of the shared database is stale waits. */
    private void reconcile(String refundId) {
        Sql.update("update payment_attempts set updated_at = now() where updated_at < now() - interval '10 minutes'");
        Sql.update("update provider_commands set updated_at = now() where updated_at < now() - interval '10 minutes'"
                + " and id <> ?", UUID.fromString(refundId));
        try {
            VertxContextSupport.subscribeAndAwait(() -> reconciler.reconcile());
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void shouldRecordAnAnomalyForAProviderRefundThatNoRefundOfOursAccountsFor() {
        Scene scene = scene("extra", false);
        String suffix = scene.suffix();
        String charge = scene.charge();
        String intent = scene.intent();
        String id = scene.orderId();
        String refundId = sent(scene, 1000, "re_ours_" + suffix);
        refundEvent("refund.updated", "re_ours_" + suffix, charge, intent, 1000, "succeeded", refundId).then()
                .statusCode(200).header("Payment-Outcome", "applied");
        double before = Meters.count(registry, "orderflow.payments.anomalies", "kind", "unaccounted-refund");

        // a second provider refund whose metadata names ours, and one no refund of ours names at all
        refundEvent("refund.updated", "re_twice_" + suffix, charge, intent, 1000, "succeeded", refundId).then()
                .statusCode(200).header("Payment-Outcome", "unaccounted-refund");
        refundEvent("refund.created", "re_dashboard_" + suffix, charge, intent, 500, "succeeded", "not-ours").then()
                .statusCode(200).header("Payment-Outcome", "unaccounted-refund");

        for (String providerRefund : List.of("re_twice_" + suffix, "re_dashboard_" + suffix)) {
            assertEquals(1, Sql.count("select count(*) from payment_anomalies where order_id = ? and kind ="
                    + " 'unaccounted-refund' and provider_txn_id = ?", UUID.fromString(id), providerRefund));
        }
        assertEquals(before + 2, Meters.count(registry, "orderflow.payments.anomalies", "kind", "unaccounted-refund"));
        Auth.operator().get("/orders/" + id).then().body("refundedAmount", is(1000)).body("status", is("PAID"));
    }

    private static long anomalies(String orderId, String kind, String providerRefund) {
        return Sql.count("select count(*) from payment_anomalies where order_id = ? and kind = ?"
                + " and provider_txn_id = ?", UUID.fromString(orderId), kind, providerRefund);
    }

    @Test
    void shouldRecordARefundMadeAtStripeOfACaptureNoRefundOfOursWasIssuedForAsUnaccountedNotStale() {
        Scene partly = scene("dashboard", false);
        Scene whole = scene("whole", false);
        double before = Meters.count(registry, "orderflow.payments.anomalies", "kind", "unaccounted-refund");
        String refundEvent = StripeFixtures.event("evt_" + UUID.randomUUID(), "refund.created", StripeFixtures.refund(
                "re_dash_" + partly.suffix(), partly.charge(), partly.intent(), "500", "succeeded", "not-ours"));
        String chargeEvent = StripeFixtures.event("evt_" + UUID.randomUUID(), "charge.refunded", StripeFixtures
                .charge(whole.charge(), whole.intent(), String.valueOf(CAPTURED), String.valueOf(CAPTURED), true));

        for (int delivery = 0; delivery < 2; delivery++) { // Stripe re-sends until it reads a 2xx
            stripe(refundEvent).then().statusCode(200).header("Payment-Outcome", "unaccounted-refund");
            stripe(chargeEvent).then().statusCode(200).header("Payment-Outcome", "unaccounted-refund");
        }

        assertEquals(1, anomalies(partly.orderId(), "unaccounted-refund", "re_dash_" + partly.suffix()));
        assertEquals(1, anomalies(whole.orderId(), "unaccounted-refund", whole.charge()),
                "charge.refunded names no refund id: the capture stands for it");
        assertEquals(0, Sql.count("select count(*) from payment_anomalies where order_id in (?, ?) and kind ="
                + " 'stale-event'", UUID.fromString(partly.orderId()), UUID.fromString(whole.orderId())));
        assertEquals(before + 2, Meters.count(registry, "orderflow.payments.anomalies", "kind", "unaccounted-refund"));
        Auth.operator().get("/orders/" + partly.orderId()).then().body("status", is("PAID"))
                .body("refundedAmount", is(0));
        Auth.operator().get("/orders/" + whole.orderId()).then().body("status", is("PAID"));
    }

    @Test
    void shouldRecordARefundMadeAtWechatPayOfACaptureNoRefundOfOursWasIssuedForAsUnaccounted() {
        breakers.reset("wechatpay");
        String customer = newCustomer();
        String id = Shoppers.yuanOrder(customer);
        server.stubFor(post("/v3/pay/transactions/native")
                .willReturn(okJson("{\"code_url\":\"weixin://wxpay/bizpayurl?pr=dashboard\"}")));
        String outTradeNo = Shoppers.payWithWechat(customer, id);
        String transaction = "42" + outTradeNo.substring(0, 20);
        wechat("EV-pay-" + outTradeNo, "TRANSACTION.SUCCESS", "transaction",
                WechatFixtures.transaction(outTradeNo, transaction, "SUCCESS", "2500"));
        Auth.operator().get("/orders/" + id).then().body("status", is("PAID"));
        String refundId = "5030" + outTradeNo.substring(0, 10);
        double before = Meters.count(registry, "orderflow.payments.anomalies", "kind", "unaccounted-refund");

        for (int delivery = 0; delivery < 2; delivery++) { // WeChat re-sends until it reads a 2xx
            wechat("EV-refund-" + outTradeNo, "REFUND.SUCCESS", "refund", WechatFixtures.refund(outTradeNo,
                    transaction, "merchant-console-1", refundId, "SUCCESS", "1000"));
        }

        assertEquals(1, anomalies(id, "unaccounted-refund", refundId));
        assertEquals(0, Sql.count("select count(*) from payment_anomalies where order_id = ? and kind = 'stale-event'",
                UUID.fromString(id)));
        assertEquals(before + 1, Meters.count(registry, "orderflow.payments.anomalies", "kind", "unaccounted-refund"));
        Auth.operator().get("/orders/" + id).then().body("status", is("PAID")).body("refundedAmount", is(0));
    }

    private void wechat(String notificationId, String eventType, String summary, String resource) {
        SandboxCalls.wechat(sandbox, notificationId, eventType, summary, resource);
    }

    @Test
    void shouldSettleMockpayRefundsFromTheirCallbacksWhichNameTheRefund() {
        String id = createOrder();
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        String txn = "txn-mock-" + UUID.randomUUID();
        Callbacks.deliver(Callbacks.success(id, AMOUNT, "EUR", txn)).then().statusCode(200);
        String failing = refund(id, 1000, newKey()).then().statusCode(202).extract().path("id");
        runWorker(id);

        Callbacks.deliver(Callbacks.refund("REFUND_FAILED", id, 1000, txn, failing)).then().statusCode(200)
                .body("outcome", is("applied"));
        Auth.operator().get("/orders/" + id + "/refunds/" + failing).then().body("status", is("FAILED"))
                .body("failureReason", is("card closed"));
        String whole = refund(id, AMOUNT, newKey()).then().statusCode(202).extract().path("id");
        runWorker(id);
        Callbacks.deliver(Callbacks.refund("REFUND_SUCCEEDED", id, AMOUNT, txn, whole)).then().statusCode(200);

        Auth.operator().get("/orders/" + id).then().body("status", is("REFUNDED"))
                .body("refundedAmount", is((int) AMOUNT));
        assertEquals(1, Sql.historyCount(id, "REFUND_COMPLETED"));
    }

    /**
     * A report that names a refund of ours but another order, amount or currency is an anomaly, answered 2xx and
     * decided once, and never settles the refund (issue 43, item 5).
     */
    @Test
    void shouldRecordAMismatchAndSettleNothingWhenARefundReportDisagreesWithTheRefundItNames() {
        String id = createOrder();
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        String txn = "txn-named-" + UUID.randomUUID();
        Callbacks.deliver(Callbacks.success(id, AMOUNT, "EUR", txn)).then().statusCode(200);
        String mocked = refund(id, 1000, newKey()).then().statusCode(202).extract().path("id");
        runWorker(id);
        String otherOrder = createOrder();
        Scene scene = scene("named", false);
        String striped = sent(scene, 1000, "re_named_" + scene.suffix());
        double before = Meters.count(registry, "orderflow.payments.anomalies", "kind", "refund-mismatch");

        String elsewhere = Callbacks.refund("REFUND_SUCCEEDED", otherOrder, 1000, txn, mocked);
        for (int delivery = 0; delivery < 2; delivery++) { // re-sent: the first answer again
            Callbacks.deliver(elsewhere).then().statusCode(200).body("outcome", is("refund-mismatch"))
                    .header("Payment-Outcome", "refund-mismatch");
        }
        Callbacks.deliver(Callbacks.refund("REFUND_SUCCEEDED", id, 999, txn, mocked)).then().statusCode(200)
                .body("outcome", is("refund-mismatch"));
        stripe(StripeFixtures.event("evt_" + UUID.randomUUID(), "refund.updated", StripeFixtures.refund("re_named_"
                + scene.suffix(), scene.charge(), scene.intent(), "1000", "succeeded", striped)
                .replace("\"currency\":\"eur\"", "\"currency\":\"usd\""))).then().statusCode(200)
                .header("Payment-Outcome", "refund-mismatch");

        for (String refundId : List.of(mocked, striped)) {
            Auth.operator().get("/orders/" + (refundId.equals(mocked) ? id : scene.orderId()) + "/refunds/"
                    + refundId).then().body("status", is("PENDING"));
        }
        assertEquals(2, Sql.count("select count(*) from payment_anomalies where order_id = ? and kind ="
                + " 'refund-mismatch'", UUID.fromString(id)));
        assertEquals(1, Sql.count("select count(*) from payment_anomalies where order_id = ? and kind ="
                + " 'refund-mismatch'", UUID.fromString(scene.orderId())));
        assertEquals(before + 3, Meters.count(registry, "orderflow.payments.anomalies", "kind", "refund-mismatch"));
        Auth.operator().get("/orders/" + id).then().body("refundedAmount", is(0)).body("status", is("PAID"));
        Auth.operator().get("/orders/" + scene.orderId()).then().body("refundedAmount", is(0));
    }

    /**
     * A refund and a CANCEL of a paid order racing: the refund commits while the CANCEL's statement waits for the
     * capture's row, so the CANCEL's snapshot misses it. The CANCEL reads what is left under the row's lock and owes
     * exactly that: both answered, no 500, no check violation (issue 43, item 4).
     */
    @Test
    void shouldDecideARefundRacingACancelOfAPaidOrderInTheCancelsStatement() throws Exception {
        Scene scene = scene("racing", false);
        String id = scene.orderId();
        CompletableFuture<Response> refunding;
        CompletableFuture<Response> cancelling;
        try (CapturedLog log = CapturedLog.start();
                RowLocks capture = RowLocks.onRows("select 1 from payment_captures where txn_id = ? for update",
                        scene.charge())) {
            // the refund's statement takes its snapshot and waits for the capture; then the CANCEL's does the same
            refunding = CompletableFuture.supplyAsync(() -> refund(id, 1500, newKey()));
            capture.awaitWaiters(1, "the refund waiting for the capture's row");
            cancelling = CompletableFuture.supplyAsync(() -> post(id, "cancel", Map.of()));
            // queued behind the refund, the CANCEL is blocked by the refund's session rather than by this test's
            Await.until(() -> Sql.count("select count(*) from pg_stat_activity where state = 'active'"
                    + " and wait_event_type = 'Lock' and datname = current_database()") == 2,
                    "the CANCEL waiting for the capture's row behind the refund");
            capture.release();

            refunding.get(30, TimeUnit.SECONDS).then().statusCode(202);
            cancelling.get(30, TimeUnit.SECONDS).then().statusCode(200).body("status", is("REFUND_PENDING"));
            assertEquals(List.of(), log.atLeast(Level.SEVERE), "no ERROR");
        }
        assertEquals(List.of(1500L, 2500L), Sql.strings("select cast(amount as text) from refunds where order_id = ?"
                + " and status = 'PENDING' order by amount", UUID.fromString(id)).stream().map(Long::valueOf).toList(),
                "the cancel owes what the refund left, no more");
        assertEquals(CAPTURED, Sql.count("select refund_held from payment_captures where txn_id = ?", scene.charge()));
        assertEquals(2, Sql.count("select count(*) from provider_commands where order_id = ? and kind = 'REFUND'",
                UUID.fromString(id)));
    }

    @Test
    void shouldRefundWhatIsLeftWhenAPartlyRefundedPaidOrderIsCancelled() {
        Scene scene = scene("left", false);
        String suffix = scene.suffix();
        String charge = scene.charge();
        String intent = scene.intent();
        String id = scene.orderId();
        refund(id, 1500, newKey()).then().statusCode(202);

        post(id, "cancel", Map.of()).then().statusCode(200).body("status", is("REFUND_PENDING"));

        assertEquals(1, Sql.count("select count(*) from refunds where order_id = ? and amount = 2500 and status ="
                + " 'PENDING'", UUID.fromString(id)), "the cancel refunds the 2500 left, beside the 1500 refund");
        assertEquals(2, Sql.count("select count(*) from provider_commands where order_id = ?", UUID.fromString(id)));
    }
}
