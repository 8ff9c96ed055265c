package io.orderflow.webhooks;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.support.Auth;
import io.orderflow.support.Await;
import io.orderflow.support.Callbacks;
import io.orderflow.support.Contract;
import io.orderflow.support.Management;
import io.orderflow.support.Meters;
import io.orderflow.support.Sql;
import io.orderflow.support.WebhookReceiver.Answer;
import io.orderflow.support.WebhookReceiver;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Webhooks end to end, against real receivers (HTTP servers on loopback: the test profile allows private targets):
 * a lifecycle's events arrive signed (checked with the Standard Webhooks library, not ours), in order, the ones
 * answered 503 at first retried and both attempts logged; a manual retry resends; a rotation signs with two secrets
 * for its overlap, then one; a redirect is never followed; an endpoint failing past the give-up window is disabled
 * and enabled again by an operator.
 */
@QuarkusTest
class WebhooksTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> LIFECYCLE = List.of("io.orderflow.order.created", "io.orderflow.order.pay",
            "io.orderflow.order.payment_succeeded", "io.orderflow.order.ship", "io.orderflow.order.deliver");

    @Inject
    MeterRegistry registry;

    /** Endpoints left enabled would be sent every other test's events (and retry them) for the rest of the run. */
    @AfterEach
    void deleteEndpoints() {
        Sql.update("update webhook_deliveries set status = 'CANCELLED' where status = 'PENDING'");
        Sql.update("update webhook_endpoints set status = 'deleted' where status <> 'deleted'");
    }

    @Test
    void shouldDeliverALifecycleSignedInOrderRetryingWhatWasAnswered503AndLoggingBothAttempts() throws Exception {
        Set<String> refusedOnce = ConcurrentHashMap.newKeySet();
        try (WebhookReceiver receiver = WebhookReceiver.start(request -> {
            String type = type(request.body());
            boolean failFirst = type.endsWith(".created") || type.endsWith(".ship");
            return Answer.of(failFirst && refusedOnce.add(request.header("webhook-id")) ? 503 : 200);
        })) {
            String key = newKey();
            Map<String, Object> body = Map.of("url", receiver.url("/hooks/orders"), "description", "fulfilment");
            Response first = register(key, body);
            first.then().statusCode(201).header("Location", matchesPattern("^/webhook-endpoints/[0-9a-f-]{36}$"))
                    .body("secret", matchesPattern("^whsec_[A-Za-z0-9+/]{43}=$")).body("status", equalTo("enabled"));
            String endpoint = first.path("id");
            String secret = first.path("secret");
            register(key, body).then().statusCode(201).header("Idempotent-Replayed", "true")
                    .body("id", equalTo(endpoint)).body("secret", equalTo(secret));
            Auth.operator().get("/webhook-endpoints/" + endpoint).then().statusCode(200)
                    .body("containsKey('secret')", equalTo(false)).body("url", equalTo(receiver.url("/hooks/orders")));

            String id = lifecycle();
            Await.until(() -> succeeded(receiver.about(id)).size() == LIFECYCLE.size(),
                    "the lifecycle's five events to be delivered");

            Webhook verifier = new Webhook(secret);
            List<WebhookReceiver.Received> all = receiver.about(id);
            for (WebhookReceiver.Received request : all) {
                verifier.verify(request.body(), request.headers());
                assertEquals("application/cloudevents+json", request.header("content-type"));
                assertEquals(JSON.readTree(request.body()).get("id").asText(), request.header("webhook-id"));
            }
            List<WebhookReceiver.Received> delivered = succeeded(all);
            assertEquals(LIFECYCLE, delivered.stream().map(r -> type(r.body())).toList(), "in the order's order");
            assertEquals(List.of(0, 1, 2, 3, 4), delivered.stream().map(r -> version(r.body())).toList());
            assertEquals(LIFECYCLE.size() + 2, all.size(), "the two answered 503 were sent twice, the rest once");
            for (WebhookReceiver.Received refused : all.stream().filter(r -> r.answered() == 503).toList()) {
                List<WebhookReceiver.Received> copies = all.stream()
                        .filter(r -> r.header("webhook-id").equals(refused.header("webhook-id"))).toList();
                assertEquals(List.of(503, 200), copies.stream().map(WebhookReceiver.Received::answered).toList());
                assertEquals(copies.get(0).body(), copies.get(1).body(), "the same bytes on every attempt");
                assertEquals(List.of(503, 200), logged(endpoint, refused.header("webhook-id")));
            }

            String shipped = delivered.get(3).header("webhook-id");
            Response resent = Auth.operator().post("/webhook-endpoints/" + endpoint + "/deliveries/" + shipped
                    + "/retry");
            resent.then().statusCode(200).body("manual", equalTo(true)).body("statusCode", equalTo(200))
                    .body("attempt", equalTo(3));
            assertEquals(3, receiver.about(id).stream().filter(r -> r.header("webhook-id").equals(shipped)).count());
            assertEquals(List.of(503, 200, 200), logged(endpoint, shipped));
        }
    }

    @Test
    void shouldSendAnEndpointOnlyTheTypesItAsksFor() {
        try (WebhookReceiver all = WebhookReceiver.accepting(); WebhookReceiver ships = WebhookReceiver.accepting()) {
            register(newKey(), Map.of("url", all.url("/all"))).then().statusCode(201);
            register(newKey(), Map.of("url", ships.url("/ships"), "types", List.of("io.orderflow.order.ship")))
                    .then().statusCode(201).body("types", equalTo(List.of("io.orderflow.order.ship")));
            String id = lifecycle();
            Await.until(() -> succeeded(all.about(id)).size() == LIFECYCLE.size(), "every event to the first");
            Await.until(() -> ships.about(id).size() == 1, "the ship event to the second");
            assertEquals("io.orderflow.order.ship", type(ships.about(id).get(0).body()));
        }
    }

    @Test
    void shouldSignWithBothSecretsDuringARotationsOverlapThenWithTheNewOneAlone() throws Exception {
        try (WebhookReceiver receiver = WebhookReceiver.accepting()) {
            Response registered = register(newKey(), Map.of("url", receiver.url("/rotating")));
            String endpoint = registered.path("id");
            String old = registered.path("secret");
            Response rotated = Auth.operator().header("Idempotency-Key", newKey())
                    .post("/webhook-endpoints/" + endpoint + "/rotate-secret");
            rotated.then().statusCode(200).body("id", equalTo(endpoint));
            String fresh = rotated.path("secret");
            assertNotEquals(old, fresh);

            String during = createOrder();
            Await.until(() -> receiver.about(during).size() == 1, "the created event during the overlap");
            WebhookReceiver.Received overlapping = receiver.about(during).get(0);
            assertEquals(2, overlapping.header("webhook-signature").split(" ").length);
            new Webhook(fresh).verify(overlapping.body(), overlapping.headers());
            new Webhook(old).verify(overlapping.body(), overlapping.headers());

            // the overlap ends (24 h in production): moved to the past rather than waited for; the replica delivering
            // the endpoint reads it again within a second, so orders are created until one is signed once
            Sql.update("update webhook_endpoints set previous_secret_until = now() - interval '1 second'"
                    + " where id = cast(? as uuid)", endpoint);
            WebhookReceiver.Received signedOnce = null;
            for (int i = 0; i < 100 && signedOnce == null; i++) {
                String after = createOrder();
                Await.until(() -> receiver.about(after).size() == 1, "the created event after the overlap");
                WebhookReceiver.Received received = receiver.about(after).get(0);
                signedOnce = received.header("webhook-signature").split(" ").length == 1 ? received : null;
            }
            WebhookReceiver.Received single = signedOnce;
            assertEquals(1, single.header("webhook-signature").split(" ").length);
            new Webhook(fresh).verify(single.body(), single.headers());
            assertThrows(WebhookVerificationException.class,
                    () -> new Webhook(old).verify(single.body(), single.headers()));
        }
    }

    @Test
    void shouldNeverFollowARedirectToLoopback() {
        try (WebhookReceiver inside = WebhookReceiver.accepting();
                WebhookReceiver redirecting = WebhookReceiver.start(
                        request -> new Answer(302, inside.url("/internal-admin")))) {
            String endpoint = register(newKey(), Map.of("url", redirecting.url("/moved"))).path("id");
            String id = createOrder();
            Await.until(() -> !logged(endpoint).isEmpty(), "a first attempt");
            assertEquals(302, logged(endpoint).get(0).get("statusCode").asInt(), "a redirect is a failed attempt");
            assertTrue(inside.received().isEmpty(), "the redirect's target was never asked");
            assertTrue(redirecting.about(id).stream().allMatch(request -> request.answered() == 302),
                    "every attempt was answered by the redirect itself");
        }
    }

    @Test
    void shouldDisableAnEndpointFailingPastTheGiveUpWindowUntilAnOperatorEnablesIt() {
        try (WebhookReceiver down = WebhookReceiver.start(request -> Answer.of(500))) {
            String endpoint = register(newKey(), Map.of("url", down.url("/down"))).path("id");
            double disabledBefore = disabledCount();
            String id = createOrder();
            Await.until(() -> Sql.count("select count(*) from webhook_deliveries where endpoint_id = cast(? as uuid)",
                    endpoint) == 1, "a first failed attempt, owed from now on");
            // three days of failures, moved to the past rather than waited for
            Sql.update("update webhook_endpoints set failing_since = now() - interval '4 days' where id = cast(? as uuid)",
                    endpoint);
            Sql.update("update webhook_deliveries set created_at = now() - interval '4 days' where endpoint_id ="
                    + " cast(? as uuid)", endpoint);
            Await.until(() -> "disabled".equals(Auth.operator().get("/webhook-endpoints/" + endpoint).path("status")),
                    "the endpoint to be disabled");
            Auth.operator().get("/webhook-endpoints/" + endpoint).then()
                    .body("disabledReason", matchesPattern("^every delivery failed since .*"));
            assertEquals(disabledBefore + 1, disabledCount(), 0.0);
            assertEquals("FAILED", Sql.string("select status from webhook_deliveries where endpoint_id = cast(? as uuid)",
                    endpoint));

            down.answer(request -> Answer.of(204));
            Auth.operator().post("/webhook-endpoints/" + endpoint + "/enable").then().statusCode(200)
                    .body("status", equalTo("enabled")).body("containsKey('disabledReason')", equalTo(false));
            String next = createOrder();
            Await.until(() -> succeeded(down.about(next)).size() == 1, "an event after it was enabled");
        }
    }

    @Test
    void shouldRefuseBadRegistrationsAndStoreNothing() {
        long before = Sql.count("select count(*) from webhook_endpoints");
        for (Map<String, Object> body : List.<Map<String, Object>>of(Map.of("url", "ftp://example.com/hook"),
                Map.of("url", "file:///etc/passwd"), Map.of("url", "gopher://127.0.0.1:6379/_FLUSHALL"),
                Map.of("url", "http://user:pass@127.0.0.1/hook"), Map.of("url", "not a url"),
                Map.of("url", "http://127.0.0.1/hook", "types", List.of("io.orderflow.order.teleported")),
                Map.of("url", "http://127.0.0.1/hook", "description", " "))) {
            register(newKey(), body).then().statusCode(400).contentType("application/problem+json")
                    .body("type", matchesPattern(".*invalid-request$"));
        }
        Auth.operator().filter(Contract.invalidRequest()).contentType(ContentType.JSON).body(Map.of("url", "http://127.0.0.1/hook"))
                .post("/webhook-endpoints").then().statusCode(400).body("type", matchesPattern(".*idempotency-key-missing$"));
        assertEquals(before, Sql.count("select count(*) from webhook_endpoints"));
        String missing = UUID.randomUUID().toString();
        Auth.operator().get("/webhook-endpoints/" + missing).then().statusCode(404);
        Auth.operator().post("/webhook-endpoints/" + missing + "/deliveries/" + UUID.randomUUID() + "/retry").then()
                .statusCode(404);
    }

    @Test
    void shouldListEndpointsWithoutSecretsAndDeleteOne() {
        String a = register(newKey(), Map.of("url", "http://127.0.0.1:9/a")).path("id");
        String b = register(newKey(), Map.of("url", "http://127.0.0.1:9/b")).path("id");
        List<String> listed = Auth.operator().queryParam("limit", 100).get("/webhook-endpoints").path("items.id");
        assertTrue(listed.containsAll(List.of(a, b)));
        Auth.operator().get("/webhook-endpoints").then().body("items.findAll { it.containsKey('secret') }.size()",
                equalTo(0));
        // a client that accepts only problems (the success has no body) is answered too, not refused 406
        Auth.operator().accept("application/problem+json").delete("/webhook-endpoints/" + a).then().statusCode(204);
        Auth.operator().delete("/webhook-endpoints/" + a).then().statusCode(204);
        Auth.operator().accept("application/problem+json").delete("/webhook-endpoints/" + UUID.randomUUID()).then()
                .statusCode(404).contentType("application/problem+json");
        Auth.operator().get("/webhook-endpoints/" + a).then().statusCode(404);
        assertFalse(Auth.operator().queryParam("limit", 100).get("/webhook-endpoints").<List<String>>path("items.id")
                .contains(a));
        Auth.customer("c-webhooks").get("/webhook-endpoints").then().statusCode(403);
    }

    @Test
    void shouldExposeTheWebhookSeriesFromStartup() {
        String metrics = Management.metrics();
        for (String series : List.of("orderflow_webhooks_attempts_total{outcome=\"succeeded\"}",
                "orderflow_webhooks_attempts_total{outcome=\"http-error\"}",
                "orderflow_webhooks_attempts_total{outcome=\"timeout\"}",
                "orderflow_webhooks_attempts_total{outcome=\"connection-error\"}",
                "orderflow_webhooks_attempts_total{outcome=\"refused-target\"}",
                "orderflow_webhooks_deliveries_failed_total ", "orderflow_webhooks_endpoints_disabled_total ",
                "orderflow_webhooks_delivery_lag_seconds ")) {
            assertTrue(metrics.contains(series), series + " in\n" + metrics);
        }
    }

    /** Create, PAY, the provider's success, SHIP, DELIVER: five events. */
    private static String lifecycle() {
        String id = createOrder();
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        Callbacks.deliver(Callbacks.success(id, AMOUNT, "EUR", "txn-" + UUID.randomUUID())).then().statusCode(200);
        post(id, "ship", shipBody()).then().statusCode(200);
        post(id, "deliver", Map.of()).then().statusCode(200);
        return id;
    }

    static Response register(String key, Map<String, Object> body) {
        return Auth.operator().header("Idempotency-Key", key).contentType(ContentType.JSON).body(body)
                .post("/webhook-endpoints");
    }

    /** The requests answered 2xx, once per event, in the order they arrived. */
    private static List<WebhookReceiver.Received> succeeded(List<WebhookReceiver.Received> requests) {
        Set<String> seen = new HashSet<>();
        Map<String, WebhookReceiver.Received> firstSuccess = new LinkedHashMap<>();
        for (WebhookReceiver.Received request : requests) {
            if (request.answered() / 100 == 2 && seen.add(request.header("webhook-id"))) {
                firstSuccess.put(request.header("webhook-id"), request);
            }
        }
        return List.copyOf(firstSuccess.values());
    }

    /** The status codes of the endpoint's attempts at {@code eventId}, in the log's order. */
    private static List<Integer> logged(String endpoint, String eventId) {
        return logged(endpoint).stream().filter(a -> a.get("eventId").asText().equals(eventId))
                .map(a -> a.get("statusCode").asInt()).toList();
    }

    private static List<JsonNode> logged(String endpoint) {
        String page = Auth.operator().queryParam("limit", 100).get("/webhook-endpoints/" + endpoint + "/deliveries")
                .then().statusCode(200).extract().asString();
        try {
            return List.copyOf(JSON.readTree(page).get("items").findParents("eventId"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private double disabledCount() {
        return Meters.count(registry, "orderflow.webhooks.endpoints.disabled");
    }

    private static String type(String body) {
        try {
            return JSON.readTree(body).get("type").asText();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int version(String body) {
        try {
            return JSON.readTree(body).get("data").get("version").asInt();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
