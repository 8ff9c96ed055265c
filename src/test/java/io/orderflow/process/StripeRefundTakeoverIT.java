package io.orderflow.process;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.support.ItDatabase;
import io.orderflow.support.ServiceClient.Answer;
import io.orderflow.support.ServiceClient;
import io.orderflow.support.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A refund owed by a CANCEL, sent exactly once in effect while the replica sending it dies: two replicas of the
 * packaged service with Stripe played by WireMock (each replica's {@code api-base} has its own path prefix, so the
 * sandbox knows who called). The first refund call hangs past the call timeout; the replica that claimed the command
 * is killed with SIGKILL while it waits. The other replica's worker takes the command over once its lease has run
 * out and sends the refund again with the same Idempotency-Key, which Stripe (WireMock, as Stripe does) answers as an
 * idempotent replay of the one refund it made. Then Stripe's signed {@code charge.refunded} closes the order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StripeRefundTakeoverIT {

    private static final String REFUNDS = "refunds";
    private static final String MADE = "refund made";
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private WireMockServer stripe;
    private List<ServiceProcess> replicas = List.of();

    @BeforeAll
    void startStripeAndTwoReplicas() {
        ItDatabase.createIfMissing();
        stripe = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        stripe.start();
        replicas = List.of("StripeRefundTakeoverIT-1", "StripeRefundTakeoverIT-2").stream()
                .map(name -> ServiceProcess.start(name, replicaEnvironment(name))).toList();
        replicas.forEach(ServiceProcess::awaitReady);
    }

    /** Stripe against the sandbox, short timeouts and lease, the worker every second, no reconciliation. */
    private Map<String, String> replicaEnvironment(String name) {
        return Map.ofEntries(Map.entry("PAYMENTS_PROVIDERS_STRIPE_API_KEY", StripeFixtures.API_KEY),
                Map.entry("PAYMENTS_PROVIDERS_STRIPE_WEBHOOK_SECRETS", StripeFixtures.SECRET),
                Map.entry("PAYMENTS_PROVIDERS_STRIPE_API_BASE", "http://127.0.0.1:" + stripe.port() + "/" + name),
                // a call gives up after 3 s (no retry within the call); the lease outlasts it, as it must
                Map.entry("PAYMENTS_PROVIDERS_STRIPE_CALL_TIMEOUT", "3s"),
                Map.entry("PAYMENTS_PROVIDERS_STRIPE_HTTP_TIMEOUT", "5s"),
                Map.entry("PAYMENTS_PROVIDERS_STRIPE_MAX_RETRIES", "0"),
                Map.entry("PAYMENTS_REFUNDS_EVERY", "1s"), Map.entry("PAYMENTS_REFUNDS_LEASE", "6s"),
                Map.entry("PAYMENTS_REFUNDS_FIRST_BACKOFF", "1s"), Map.entry("PAYMENTS_RECONCILE_EVERY", "off"));
    }

    @AfterAll
    void stopEverything() {
        replicas.stream().filter(ServiceProcess::isAlive).forEach(ServiceProcess::sigterm);
        replicas.forEach(r -> r.awaitExit(Duration.ofSeconds(90)));
        if (stripe != null) {
            stripe.stop();
        }
    }

    @Test
    void shouldRefundOnceWhenTheReplicaSendingTheRefundDiesMidCallAndAnotherTakesTheCommandOver() {
        ServiceClient client = new ServiceClient(replicas.get(0));
        String customer = ServiceClient.newCustomer();
        String id = client.createOrder(customer, UUID.randomUUID().toString()).field("id");
        String intent = "pi_takeover_" + id.replace("-", "").substring(0, 12);
        String charge = "ch_takeover_" + id.replace("-", "").substring(0, 12);
        stripe.stubFor(post(urlPathMatching("/StripeRefundTakeoverIT-[12]/v1/payment_intents")).willReturn(okJson(
                StripeFixtures.intent(intent, "requires_payment_method", String.valueOf(ServiceClient.AMOUNT), "eur",
                        null))));
        Answer paid = client.transition(id, "pay", customer, UUID.randomUUID().toString(), "{\"provider\":\"stripe\"}");
        assertEquals(200, paid.status(), paid.toString());
        assertEquals(200, stripeWebhook(replicas.get(1), StripeFixtures.event("payment_intent.succeeded",
                StripeFixtures.intent(intent, "succeeded", String.valueOf(ServiceClient.AMOUNT), "eur", charge))));
        assertEquals("PAID", status(id));

        // Stripe makes the refund on the first call and answers it only after 20 s; a later call with the same
        // Idempotency-Key is answered at once with that refund (Idempotent-Replayed), as Stripe replays a request
        String refund = StripeFixtures.refund("re_takeover_" + id.substring(0, 8), charge, intent,
                String.valueOf(ServiceClient.AMOUNT), "succeeded", "set-by-the-command");
        stripe.stubFor(post(urlPathMatching("/StripeRefundTakeoverIT-[12]/v1/refunds"))
                .withRequestBody(containing("charge=" + charge)).inScenario(REFUNDS)
                .whenScenarioStateIs(Scenario.STARTED).willSetStateTo(MADE)
                .willReturn(okJson(refund).withFixedDelay(20_000)));
        stripe.stubFor(post(urlPathMatching("/StripeRefundTakeoverIT-[12]/v1/refunds"))
                .withRequestBody(containing("charge=" + charge)).inScenario(REFUNDS).whenScenarioStateIs(MADE).willReturn(okJson(refund).withHeader("Idempotent-Replayed", "true")));
        Answer cancelled = client.transition(id, "cancel", customer, UUID.randomUUID().toString(),
                ServiceClient.CANCEL_BODY);
        assertEquals("REFUND_PENDING", cancelled.field("status"), cancelled.toString());
        String command = ItDatabase.string("select cast(id as text) from provider_commands where order_id = ?",
                UUID.fromString(id));

        LoggedRequest first = awaitRefundPosts(1).get(0);
        ServiceProcess holder = replicas.stream().filter(r -> first.getUrl().startsWith("/" + r.name() + "/"))
                .findFirst().orElseThrow();
        holder.kill(); // SIGKILL while its refund call is still waiting for Stripe's answer
        ServiceProcess survivor = replicas.stream().filter(r -> r != holder).findFirst().orElseThrow();

        awaitCommandDone(command);

        List<LoggedRequest> posts = refundPosts();
        System.out.println("refund POSTs: " + posts.stream().map(p -> p.getUrl() + " Idempotency-Key="
                + p.getHeader("Idempotency-Key")).toList());
        assertTrue(posts.size() >= 2, "the survivor sent the refund again: " + posts.size());
        assertEquals(List.of("orderflow-refund-" + command), posts.stream().map(p -> p.getHeader("Idempotency-Key"))
                .distinct().toList(), "every call carries the command's key: Stripe makes one refund");
        assertTrue(posts.stream().allMatch(p -> p.getBodyAsString().contains("charge=" + charge)
                && p.getBodyAsString().contains("amount=" + ServiceClient.AMOUNT)), "a full refund of the charge");
        assertTrue(posts.get(posts.size() - 1).getUrl().startsWith("/" + survivor.name() + "/"),
                "the survivor took the command over");
        assertEquals(1, stripe.getAllScenarios().getScenarios().stream()
                .filter(s -> s.getName().equals(REFUNDS) && s.getState().equals(MADE)).count(),
                "one refund made: every later call was a replay of it");
        assertEquals(1, ItDatabase.count("select count(*) from provider_refunds where command_id = ?",
                UUID.fromString(command)), "one provider refund recorded for the command");

        assertEquals(200, stripeWebhook(survivor, StripeFixtures.event("charge.refunded", StripeFixtures.charge(charge,
                intent, String.valueOf(ServiceClient.AMOUNT), String.valueOf(ServiceClient.AMOUNT), true))));
        assertEquals("REFUNDED", status(id));
        assertEquals("REFUNDED", ItDatabase.string("select state from payment_captures where txn_id = ?", charge));
        assertEquals(List.of(), ItDatabase.checker().check(List.of(UUID.fromString(id))));
    }

    private static String status(String orderId) {
        return ItDatabase.string("select status from orders where id = ?", UUID.fromString(orderId));
    }

    private List<LoggedRequest> refundPosts() {
        return stripe.findAll(postRequestedFor(urlPathMatching("/StripeRefundTakeoverIT-[12]/v1/refunds")));
    }

    /** Waits, bounded, until Stripe has received {@code n} refund calls. */
    private List<LoggedRequest> awaitRefundPosts(int n) {
        for (int i = 0; i < 600 && refundPosts().size() < n; i++) {
            sleep(50);
        }
        List<LoggedRequest> posts = refundPosts();
        assertTrue(posts.size() >= n, "refund calls received: " + posts.size());
        return posts;
    }

    /** Waits, bounded, until the command is settled DONE (the survivor's worker got Stripe's answer). */
    private static void awaitCommandDone(String command) {
        for (int i = 0; i < 300; i++) {
            if ("DONE".equals(ItDatabase.string("select state from provider_commands where id = ?",
                    UUID.fromString(command)))) {
                return;
            }
            sleep(100);
        }
        throw new AssertionError("the command was not settled: " + ItDatabase.string("select state || ' '"
                + " || tries || ' ' || coalesce(last_outcome, '') from provider_commands where id = ?",
                UUID.fromString(command)));
    }

    /** A Stripe webhook as Stripe signs it, to {@code replica}; its status code. */
    private static int stripeWebhook(ServiceProcess replica, String payload) {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(replica.baseUri()
                    + "/payments/stripe/callbacks")).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json; charset=utf-8")
                    .header("Stripe-Signature", StripeFixtures.signature(StripeFixtures.SECRET,
                            Instant.now().getEpochSecond(), payload))
                    .POST(HttpRequest.BodyPublishers.ofString(payload)).build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
