package io.orderflow.payment;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static io.orderflow.support.OrderMother.newKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.payment.StripeOrders.Scene;
import io.orderflow.payment.refunds.RefundOutcomes;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.stripe.StripeProvider;
import io.orderflow.payment.workers.RefundWorker;
import io.orderflow.support.CapturedLog;
import io.orderflow.support.Meters;
import io.orderflow.support.RowLocks;
import io.orderflow.support.Sql;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * What the refund worker makes of Stripe's refusals (issue 43), with Stripe played by WireMock: only a definite
 * refusal of the refund fails it — and then the command and the refund fail in one statement; a refusal that kept the
 * service from asking leaves the refund owed, with an ERROR line and a metric; a charge already refunded is settled
 * by looking its refunds up.
 */
@QuarkusTest
@WithTestResource(PaymentSandbox.class)
class RefundRefusalsTest extends SandboxedProviderTest {

    private static final long CAPTURED = 4000;

    @Inject
    RefundWorker worker;

    @Inject
    MeterRegistry registry;

    @Override
    protected String provider() {
        return StripeProvider.NAME;
    }

    /** A refund of 1000 of a new Stripe order, issued (not sent yet); its id. */
    private String issued(Scene scene) {
        return StripeOrders.refund(scene.orderId(), 1000, newKey()).then().statusCode(202).extract().path("id");
    }

    /** A refund issued, which Stripe will refuse as {@code charge_already_refunded}; its id. */
    private String refusedAsAlreadyRefunded(Scene scene) {
        String refundId = issued(scene);
        server.stubFor(post("/v1/refunds").willReturn(StripeFixtures.error(400, "invalid_request_error",
                "charge_already_refunded")));
        return refundId;
    }

    private static String refundStatus(String refundId) {
        return Sql.string("select status from refunds where id = ?", UUID.fromString(refundId));
    }

    private static String commandState(String refundId) {
        return Sql.string("select state from provider_commands where id = ?", UUID.fromString(refundId));
    }

    private static long held(Scene scene) {
        return Sql.count("select refund_held from payment_captures where txn_id = ?", scene.charge());
    }

    private double failedCount() {
        return Meters.count(registry, RefundOutcomes.METRIC, "provider", "stripe", "status", "failed");
    }

    @Test
    void shouldFailARefusedRefundAndItsCommandInOneStatement() throws Exception {
        Scene scene = StripeOrders.paid(server, "disputed", CAPTURED);
        String refundId = issued(scene);
        server.stubFor(post("/v1/refunds").willReturn(StripeFixtures.error(400, "invalid_request_error",
                "charge_disputed")));
        CompletableFuture<Integer> pass;
        // a slow writer holds the refund's row: the worker's outcome waits for it
        try (RowLocks locks = RowLocks.onRows("select 1 from refunds where id = ?::uuid for update", refundId)) {
            pass = CompletableFuture.supplyAsync(() -> SandboxCalls.runWorker(worker, scene.orderId()));
            locks.awaitWaiters(1, "the worker's outcome waiting on the refund's row");

            assertEquals(List.of("SENT", "PENDING"), List.of(commandState(refundId), refundStatus(refundId)),
                    "while the refund's outcome waits, the command's is not committed either: no crash can leave"
                            + " a FAILED command beside its refund still PENDING");
            locks.release();
            pass.get(30, TimeUnit.SECONDS);
        }

        assertEquals(List.of("FAILED", "FAILED"), List.of(commandState(refundId), refundStatus(refundId)));
        assertEquals(0, held(scene), "its amount is released: owed again");
    }

    /** Stripe would not let the service ask: the refund is owed still, an operator is alarmed (issue 43). */
    @ParameterizedTest
    @CsvSource({ "401, invalid_request_error,", "403, invalid_request_error, secret_key_required",
            "404, invalid_request_error, resource_missing", "400, idempotency_error," })
    void shouldKeepARefundOwedWithAnErrorLineAndAMetricWhenStripeWillNotLetTheServiceAsk(int status, String type,
            String code) {
        Scene scene = StripeOrders.paid(server, "unasked", CAPTURED);
        String refundId = issued(scene);
        server.stubFor(post("/v1/refunds").willReturn(StripeFixtures.error(status, type, code)));
        double blockedBefore = Meters.count(registry, RefundWorker.BLOCKED, "provider", "stripe", "reason",
                "cannot-ask");
        double failedBefore = failedCount();
        // the database's clock before the worker's round: the retry is due after it, whenever this test looks
        String beforeRound = Sql.string("select cast(clock_timestamp() as text)");

        try (CapturedLog log = CapturedLog.start()) {
            SandboxCalls.runWorker(worker, scene.orderId());
            assertEquals(1, log.atLeast(Level.SEVERE).stream().filter(line -> line.contains("stripe")
                    && line.contains(refundId)).count(), log.atLeast(Level.SEVERE).toString());
        }

        assertEquals("PENDING", refundStatus(refundId), "not failed: nothing is known of it");
        assertEquals("SENT", commandState(refundId), "tried again later");
        assertEquals(1, Sql.count("select count(*) from provider_commands where id = ? and next_at > cast(? as"
                + " timestamptz)", UUID.fromString(refundId), beforeRound), "tried again after a delay, not at once");
        assertEquals(1000, held(scene), "still held: owed");
        assertEquals(blockedBefore + 1, Meters.count(registry, RefundWorker.BLOCKED, "provider", "stripe", "reason",
                "cannot-ask"));
        assertEquals(failedBefore, failedCount());
    }

    @Test
    void shouldSettleAChargeAlreadyRefundedByFindingTheRefundAmongTheChargesRefundsPageAfterPage() {
        Scene scene = StripeOrders.paid(server, "already", CAPTURED);
        String refundId = refusedAsAlreadyRefunded(scene);
        String other = UUID.randomUUID().toString();
        String charge = scene.charge();
        String intent = scene.intent();
        server.stubFor(get(urlPathEqualTo("/v1/refunds")).withQueryParam("charge", equalTo(charge))
                .withQueryParam("starting_after", absent()).willReturn(okJson(page(true,
                        StripeFixtures.refund("re_a1_" + scene.suffix(), charge, intent, "1000", "succeeded", other),
                        StripeFixtures.refund("re_a2_" + scene.suffix(), charge, intent, "1000", "succeeded", other)))));
        server.stubFor(get(urlPathEqualTo("/v1/refunds")).withQueryParam("starting_after",
                equalTo("re_a2_" + scene.suffix())).willReturn(okJson(page(false, StripeFixtures.refund(
                        "re_ours_" + scene.suffix(), charge, intent, "1000", "pending", refundId)))));

        SandboxCalls.runWorker(worker, scene.orderId());

        assertEquals("DONE", commandState(refundId), "Stripe made it: its notification or the janitor settles it");
        assertEquals("re_ours_" + scene.suffix(), Sql.string("select refund_id from provider_commands where id = ?",
                UUID.fromString(refundId)));
        assertEquals("PENDING", refundStatus(refundId));
        assertEquals(2, server.findAll(getRequestedFor(urlPathEqualTo("/v1/refunds"))).size());
    }

    @Test
    void shouldFailAChargeAlreadyRefundedWhenNoneOfItsRefundsIsThisOne() {
        Scene scene = StripeOrders.paid(server, "elsewhere", CAPTURED);
        String refundId = refusedAsAlreadyRefunded(scene);
        server.stubFor(get(urlPathEqualTo("/v1/refunds")).willReturn(okJson(page(false, StripeFixtures.refund(
                "re_dash_" + scene.suffix(), scene.charge(), scene.intent(), "4000", "succeeded", "dashboard")))));

        SandboxCalls.runWorker(worker, scene.orderId());

        assertEquals(List.of("FAILED", "FAILED"), List.of(commandState(refundId), refundStatus(refundId)));
        assertTrue(Sql.string("select failure_reason from refunds where id = ?", UUID.fromString(refundId))
                .startsWith("charge_already_refunded"));
    }

    private static String page(boolean hasMore, String... refunds) {
        return "{\"object\":\"list\",\"url\":\"/v1/refunds\",\"has_more\":" + hasMore + ",\"data\":["
                + String.join(",", refunds) + "]}";
    }
}
