package io.orderflow.payment;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.payment.reconcile.Reconciler;
import io.orderflow.payment.stripe.StripeProvider;
import io.orderflow.support.Auth;
import io.orderflow.support.Contract;
import io.orderflow.support.Sql;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /ops/payments-stuck}: what the janitor could not settle, with what Stripe (WireMock) last said — a
 * provider that never answers, one that keeps saying pending — and never a payment it settled.
 */
@QuarkusTest
@WithTestResource(PaymentSandbox.class)
class StuckPaymentsResourceTest extends SandboxedProviderTest {

    private static final String TYPES = "https://orderflow.dev/problems/";

    @Inject
    Reconciler reconciler;

    @Override
    protected String provider() {
        return StripeProvider.NAME;
    }

    /**
     * An order paying through Stripe with PaymentIntent {@code intent}, its attempt started {@code minutes} ago; its
     * last claim is made the oldest, so the janitor's next run asks about it whatever else is pending.
     */
    private String pendingWithStripe(String intent, int minutes) {
        String id = Janitor.payingWithStripe(server, intent);
        Sql.update("update payment_attempts set created_at = now() - make_interval(mins => ?), updated_at = now()"
                + " - interval '1 year' where order_id = ?", minutes, UUID.fromString(id));
        return id;
    }

    private void stripeSays(String intent, String status, String charge) {
        Janitor.stripeSays(server, intent, status, charge);
    }

    private List<String> reconcile() {
        return Janitor.run(reconciler);
    }

    /** Every stuck payment, by order id, walking the pages {@code size} at a time. */
    private static Map<String, Map<String, Object>> allStuck(int size) {
        Map<String, Map<String, Object>> byOrder = new HashMap<>();
        String after = null;
        do {
            var request = Auth.operator().queryParam("limit", size);
            if (after != null) {
                request = request.queryParam("after", after);
            }
            Response page = request.get("/ops/payments-stuck").then().statusCode(200).extract().response();
            List<Map<String, Object>> items = page.path("items");
            assertTrue(items.size() <= size);
            items.forEach(item -> assertFalse(byOrder.containsKey((String) item.get("orderId")), "listed twice"));
            items.forEach(item -> byOrder.put((String) item.get("orderId"), item));
            after = page.path("next");
        } while (after != null);
        return byOrder;
    }

    @Test
    void shouldListPaymentsTheProviderNeverSettledWithItsLastAnswerAndNotThoseItSettled() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String waiting = pendingWithStripe("pi_waiting_" + suffix, 30);
        stripeSays("pi_waiting_" + suffix, "requires_payment_method", null);
        String paid = pendingWithStripe("pi_paid_" + suffix, 30);
        stripeSays("pi_paid_" + suffix, "succeeded", "ch_paid_" + suffix);
        String recent = pendingWithStripe("pi_recent_" + suffix, 2);
        List<String> asked = reconcile();
        assertEquals("PAID", Sql.string("select status from orders where id = ?", UUID.fromString(paid)),
                "the janitor's answers: " + asked);
        // asked in a run of its own: its timeout opens the breaker, which would leave the others unasked
        String silent = pendingWithStripe("pi_silent_" + suffix, 40);
        server.stubFor(get(urlPathEqualTo("/v1/payment_intents/pi_silent_" + suffix))
                .willReturn(okJson("{}").withFixedDelay(3000)));
        asked = reconcile();
        assertTrue(asked.contains("pi_silent_" + suffix + " no-answer"), asked.toString());

        Map<String, Map<String, Object>> stuck = allStuck(2);
        assertTrue(stuck.containsKey(silent), "the payment Stripe never answers about");
        assertTrue(stuck.containsKey(waiting), "the payment Stripe keeps pending");
        assertFalse(stuck.containsKey(paid), "the janitor settled it");
        assertFalse(stuck.containsKey(recent), "pending for less than the reconcile window");

        Map<String, Object> never = stuck.get(silent);
        assertTrue(String.valueOf(never.get("lastAnswer")).startsWith("no-answer"), never.toString());
        assertEquals("stripe", never.get("provider"));
        assertEquals("pi_silent_" + suffix, never.get("reference"));
        assertEquals((int) AMOUNT, never.get("amount"));
        assertEquals("EUR", never.get("currency"));
        assertEquals(Sql.string("select cast(id as text) from payment_attempts where order_id = ?",
                UUID.fromString(silent)), never.get("attemptId"));
        assertTrue(((Number) never.get("ageSeconds")).longValue() >= 40 * 60, never.toString());
        assertTrue(never.get("lastAskedAt") != null, never.toString());
        assertEquals("pending", stuck.get(waiting).get("lastAnswer"));
    }

    @Test
    void shouldShowAPaymentNotYetAskedAboutWithoutAnAnswer() {
        String intent = "pi_unasked_" + UUID.randomUUID().toString().substring(0, 8);
        String id = pendingWithStripe(intent, 20);
        Map<String, Object> item = allStuck(100).get(id);
        assertEquals(intent, item.get("reference"));
        assertFalse(item.containsKey("lastAnswer"), item.toString());
    }

    @Test
    void shouldRefuseCustomersAndAnswerBadPageParametersWithAProblem() {
        Auth.customer(newCustomer()).get("/ops/payments-stuck").then().statusCode(403);
        for (Map<String, String> bad : List.of(Map.of("limit", "0"), Map.of("limit", "101"), Map.of("limit", "ten"),
                Map.of("limit", "-1"), Map.of("after", "not-a-uuid"), Map.of("after", "1-1-1-1-1"))) {
            Auth.operator().filter(Contract.invalidRequest()).queryParams(bad).get("/ops/payments-stuck").then()
                    .statusCode(400).contentType("application/problem+json")
                    .body("type", is(TYPES + "invalid-request"), "status", is(400));
        }
    }
}
