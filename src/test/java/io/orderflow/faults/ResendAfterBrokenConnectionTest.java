package io.orderflow.faults;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.FaultProxies;
import io.orderflow.support.Management;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A statement whose connection breaks under it — as in a switchover, when the proxy in front of PostgreSQL shuts
 * the sessions of the old primary — is sent again by the service itself when that is safe (common/ResendSafety), so the
 * client gets the answer instead of a 503. The connection is cut by a real TCP proxy, once before the statement
 * committed and once after (its answer lost): either way the request has exactly one effect and one answer.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(ResendAfterBrokenConnectionTest.Proxied.class)
class ResendAfterBrokenConnectionTest {

    /** The fault proxies, with room for the test to cut and restore a connection while a statement waits. */
    public static class Proxied implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(SlowerFaultProxies.class));
        }
    }

    public static class SlowerFaultProxies extends FaultProxies {
        @Override
        public Map<String, String> start() {
            Map<String, String> config = new HashMap<>(super.start());
            config.put("orders.database.statement-timeout", "20s");
            config.put("orders.database.resend-within", "10s");
            return config;
        }
    }

    @AfterEach
    void restore() {
        FaultProxies.restorePostgres();
    }

    @Test
    void shouldSendAKeyedTransitionAgainWhenItsConnectionBrokeBeforeItCommitted() throws Exception {
        String id = paidOrder();
        String key = newKey();
        double before = resent("guarded");
        CompletableFuture<Response> answer;
        try (Connection lock = FaultProxies.lockOrder(id)) {
            answer = CompletableFuture.supplyAsync(() -> postKeyed(id, "ship", shipBody(), key));
            awaitCasWaiting();
            FaultProxies.postgres.close(); // PostgreSQL notices the vanished client and cancels the statement
            await(() -> runningCas() == 0, "the cut statement was cancelled");
            lock.rollback();
        }
        assertEquals(0, Sql.historyCount(id, "SHIP"), "the cut copy did nothing");
        FaultProxies.postgres.open();

        Response shipped = answer.get(60, TimeUnit.SECONDS);
        assertEquals(200, shipped.statusCode(), "answered, not a 503: " + shipped.asString());
        assertEquals("SHIPPED", shipped.path("status"));
        assertNull(shipped.header("Idempotent-Replayed"), "executed once, by the re-sent copy");
        assertEquals(1, Sql.historyCount(id, "SHIP"));
        assertTrue(resent("guarded") > before, "the service sent the statement again");
        postKeyed(id, "ship", shipBody(), key).then().statusCode(200).header("Idempotent-Replayed", "true");
        assertEquals(List.of(), Sql.violations(List.of(id)));
    }

    @Test
    void shouldAnswerAKeyedTransitionWithItsOwnFirstCopyWhenTheCommitsAnswerWasLost() throws Exception {
        String id = paidOrder();
        String key = newKey();
        Response shipped = afterACommitWhoseAnswerIsLost(id, () -> postKeyed(id, "ship", shipBody(), key), "SHIP");
        assertEquals(200, shipped.statusCode(), "the first copy's success, not a 503 or a 409: " + shipped.asString());
        assertEquals("SHIPPED", shipped.path("status"));
        assertEquals(3, (int) shipped.path("version"));
        assertEquals(1, Sql.historyCount(id, "SHIP"), "the re-sent copy met the first copy's effect");
        assertEquals(1, Sql.count("select count(*) from idempotency_keys where idem_key = ?", key));
        Response again = postKeyed(id, "ship", shipBody(), key);
        assertEquals(shipped.asString(), again.asString(), "a later retry gets the same answer");
        assertEquals(List.of(), Sql.violations(List.of(id)));
    }

    @Test
    void shouldAnswerAKeylessTransitionAsTheDuplicateItIsWhenTheCommitsAnswerWasLost() throws Exception {
        String id = paidOrder();
        postKeyed(id, "ship", shipBody(), newKey()).then().statusCode(200);
        Response delivered = afterACommitWhoseAnswerIsLost(id, () -> post(id, "deliver", Map.of()), "DELIVER");
        assertEquals(200, delivered.statusCode(), delivered.asString());
        assertEquals("DELIVERED", delivered.path("status"));
        assertEquals(1, Sql.historyCount(id, "DELIVER"), "the status guard kept the re-sent copy from moving it");
        assertEquals(List.of(), Sql.violations(List.of(id)));
    }

    @Test
    void shouldReplayAKeyedCreationWhoseCommitsAnswerWasLost() throws Exception {
        String customer = newCustomer();
        String key = newKey();
        double before = resent("keyed");
        CompletableFuture<Response> answer;
        // an uncommitted record of the same key holds the creation's statement on the unique index
        try (Connection hold = Sql.connect()) {
            hold.setAutoCommit(false);
            try (PreparedStatement ps = hold.prepareStatement("insert into idempotency_keys (scope, idem_key, tier,"
                    + " state, fingerprint, created_at, expires_at) values (?, ?, 'ORDERS', 'PENDING', 'hold', now(),"
                    + " now() + interval '1 day')")) {
                ps.setString(1, "customer:" + customer + " POST /orders ");
                ps.setString(2, key);
                ps.executeUpdate();
            }
            answer = CompletableFuture.supplyAsync(() -> createAs(customer, key, orderBody(customer)));
            await(() -> Sql.count("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                    + " and query like 'with created as %'") > 0, "the creation waits on the held key");
            FaultProxies.postgres.freeze(); // the commit's answer will not get through
            hold.rollback();
        }
        await(() -> Sql.count("select count(*) from orders where customer_id = ?", customer) == 1,
                "the creation committed");
        cutAndRestore();

        Response created = answer.get(60, TimeUnit.SECONDS);
        assertEquals(201, created.statusCode(), "the first copy's 201, not a 500 or 503: " + created.asString());
        assertEquals("true", created.header("Idempotent-Replayed"), "answered from the first copy's record");
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", customer));
        assertEquals(created.path("id").toString(), Sql.string("select cast(id as text) from orders"
                + " where customer_id = ?", customer));
        assertTrue(resent("keyed") > before, "the service sent the creation again");
        assertEquals(List.of(), Sql.violations(List.of((String) created.path("id"))));
    }

    @Test
    void shouldStayReadyAndSayTheDatabaseIsDegradedWhileItIsUnreachable() {
        FaultProxies.postgres.close();
        Response ready = Management.given().get("/q/health/ready");
        assertEquals(200, ready.statusCode(), "the pod still answers, with 503 + Retry-After: " + ready.asString());
        assertEquals("degraded", ready.path("checks.find { it.name == 'database' }.data.postgresql"));
        assertFalse(ready.asString().contains("Exception") || ready.asString().contains("java."),
                "the public output names no class: " + ready.asString());
        FaultProxies.postgres.open();
        await(() -> "up".equals(Management.given().get("/q/health/ready").path("checks.find { it.name == 'database' }"
                + ".data.postgresql")), "the database is reported up again");
    }

    // ----------------------------------------------------------------------------------------------------------

    /**
     * Sends {@code request} while the order's row is locked, lets its statement commit with the proxy frozen (so the
     * answer stays on the wire), then cuts the connection: the service has only a broken connection to show for it.
     */
    private static Response afterACommitWhoseAnswerIsLost(String id, Supplier<Response> request,
            String event) throws Exception {
        long before = Sql.historyCount(id, event);
        CompletableFuture<Response> answer;
        try (Connection lock = FaultProxies.lockOrder(id)) {
            answer = CompletableFuture.supplyAsync(request);
            awaitCasWaiting();
            FaultProxies.postgres.freeze();
            lock.rollback();
        }
        await(() -> Sql.historyCount(id, event) == before + 1, "the statement committed");
        cutAndRestore();
        return answer.get(60, TimeUnit.SECONDS);
    }

    private static void cutAndRestore() {
        FaultProxies.postgres.close();
        FaultProxies.restorePostgres();
    }

    private static double resent(String kind) {
        return Management.given().get("/q/metrics").asString().lines()
                .filter(l -> l.startsWith("orderflow_db_resent_total{") && l.contains("kind=\"" + kind + "\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    private static long runningCas() {
        return Sql.count("select count(*) from pg_stat_activity where state = 'active' and query like 'with rule %'");
    }

    private static void awaitCasWaiting() {
        await(() -> Sql.count("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                + " and query like 'with rule %'") > 0, "the service's compare-and-set waits on the locked row");
    }

    private static void await(BooleanSupplier condition, String what) {
        for (int i = 0; i < 400; i++) {
            if (condition.getAsBoolean()) {
                return;
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError(what + " (not within 10 s)");
    }
}
