package io.orderflow.faults;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.Await;
import io.orderflow.support.CappedProxiedService;
import io.orderflow.support.FaultProxies;
import io.orderflow.support.Management;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Real network faults between the service and its dependencies, through TCP proxies: PostgreSQL unreachable, a
 * statement cut before it committed, a commit whose reply was lost, Redis hanging. Each case ends with the same
 * promise: every key has exactly one effect, and a retry gets the answer the first request earned.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(CappedProxiedService.class)
class FaultInjectionTest {

    @Inject
    RedisDataSource redis;

    @AfterEach
    void restore() {
        FaultProxies.restorePostgres();
        if (FaultProxies.redis.isFrozen()) {
            FaultProxies.redis.unfreeze();
        }
    }

    @Test
    void shouldAnswer503WriteNothingAndReleaseTheRedisMarkerWhilePostgresIsDownThenSucceedOnce() {
        String customer = newCustomer();
        String key = newKey();
        FaultProxies.postgres.close();
        Response down = createAs(customer, key, orderBody(customer));
        assertEquals(503, down.statusCode(), down.asString());
        assertEquals("https://orderflow.dev/problems/service-unavailable", down.path("type"));
        assertEquals("1", down.header("Retry-After"));
        assertTrue(redis.key().keys("idem:*:" + key).isEmpty(), "the in-flight marker was released");
        assertEquals(0, Sql.count("select count(*) from idempotency_keys where idem_key = ?", key));
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));

        FaultProxies.postgres.open();
        Response recovered = createAs(customer, key, orderBody(customer));
        assertEquals(201, recovered.statusCode(), recovered.asString());
        createAs(customer, key, orderBody(customer)).then().statusCode(201).header("Idempotent-Replayed", "true")
                .body("id", is((String) recovered.path("id")));
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", customer));
        assertEquals(List.of(), Sql.violations(List.of((String) recovered.path("id"))));
    }

    @Test
    void shouldRollBackAStatementCutBeforeItCommittedAndApplyTheRetryExactlyOnce() throws Exception {
        String id = paidOrder();
        String key = newKey();
        try (Connection lock = lockOrder(id)) {
            CompletableFuture<Response> cut = CompletableFuture.supplyAsync(
                    () -> postKeyed(id, "ship", shipBody(), key));
            awaitCasBlockedOnLock();
            FaultProxies.postgres.close();
            Response answer = cut.get(30, TimeUnit.SECONDS);
            assertTrue(answer.statusCode() >= 500, "the client learns nothing was confirmed: " + answer.statusCode());
            // PostgreSQL notices the vanished client while the statement still waits, and cancels it
            awaitNoCasRunning();
            lock.rollback();
        }
        assertEquals(0, Sql.historyCount(id, "SHIP"), "the cut statement was rolled back");
        FaultProxies.postgres.open();

        postKeyed(id, "ship", shipBody(), key).then().statusCode(200).body("status", is("SHIPPED"));
        postKeyed(id, "ship", shipBody(), key).then().statusCode(200).header("Idempotent-Replayed", "true");
        assertEquals(1, Sql.historyCount(id, "SHIP"));
        assertEquals(List.of(), Sql.violations(List.of(id)));
    }

    @Test
    void shouldReplayTheOriginalSuccessWhenTheCommitReachedTheDatabaseButTheReplyWasLost() throws Exception {
        String id = paidOrder();
        String key = newKey();
        CompletableFuture<Response> lost;
        try (Connection lock = lockOrder(id)) {
            lost = CompletableFuture.supplyAsync(() -> postKeyed(id, "ship", shipBody(), key));
            awaitCasBlockedOnLock();
            FaultProxies.postgres.freeze();
            lock.rollback();
        }
        awaitHistory(id, "SHIP", 1);
        Response first = lost.get(30, TimeUnit.SECONDS);
        assertEquals(503, first.statusCode(), "the reply never arrived, so the client saw a timeout");
        FaultProxies.postgres.unfreeze();

        Response retry = postKeyed(id, "ship", shipBody(), key);
        assertEquals(200, retry.statusCode(), "the original success, not a 409: " + retry.asString());
        assertEquals("true", retry.header("Idempotent-Replayed"));
        assertEquals("SHIPPED", retry.path("status"));
        assertEquals(3, (int) retry.path("version"));
        assertEquals(1, Sql.historyCount(id, "SHIP"));
        assertEquals(List.of(), Sql.violations(List.of(id)));
    }

    @Test
    void shouldKeepExactlyOnceWhenRedisHangs() {
        String customer = newCustomer();
        String key = newKey();
        FaultProxies.redis.freeze();
        long started = System.nanoTime();
        Response first = createAs(customer, key, orderBody(customer));
        Response again = createAs(customer, key, orderBody(customer));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        FaultProxies.redis.unfreeze();
        assertEquals(201, first.statusCode());
        assertEquals(201, again.statusCode());
        assertEquals("true", again.header("Idempotent-Replayed"));
        assertEquals((String) first.path("id"), again.path("id"));
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", customer));
        assertEquals(List.of(), Sql.violations(List.of((String) first.path("id"))));
        System.out.printf("two keyed creates with Redis frozen took %d ms (Redis timeout 50 ms per command)%n", tookMs);
    }

    /**
     * A Redis that stops answering on an open connection (a partition, a frozen host) must not hold the relay's round
     * for ever: the client's {@code quarkus.redis.timeout} bounds only blocking calls. The round that met the frozen
     * Redis ends by the relay's own timeout, the next one starts, and once Redis answers the stream catches up.
     */
    @Test
    void shouldEndARelayRoundThatRedisDoesNotAnswerAndCatchUpOnceItAnswers() {
        FaultProxies.redis.freeze();
        createOrder(); // events the relay must append, so that its next round calls Redis
        Await.until(() -> Sql.count("select count(*) from event_cursors s, event_cursors r where s.name ="
                + " 'sequencer' and r.name = 'redis-stream' and s.position > r.position") > 0,
                "the order's events sequenced, not relayed");
        // Every round from now on calls Redis and finds no answer; each must end for the next to take its turn.
        String since = Sql.string("select cast(clock_timestamp() as text)");
        Await.until(() -> relayTookItsTurnSince(since), "a relay round after a round that met the frozen Redis");
        String round = Sql.string("select cast(updated_at as text) from event_cursors where name = 'redis-stream'");
        Await.until(() -> relayTookItsTurnSince(round), "the round after it, which also met the frozen Redis");

        FaultProxies.redis.unfreeze();
        Await.until(() -> Sql.count("select count(*) from event_cursors s, event_cursors r where s.name ="
                + " 'sequencer' and r.name = 'redis-stream' and s.position = r.position") > 0,
                "the stream caught up with the feed");
    }

    @Test
    void shouldShedLoadWithAFast503WhenPostgresStopsAnsweringInsteadOfQueueing() {
        String id = createOrder();
        double shedBefore = shedCount();
        FaultProxies.postgres.freeze();
        List<Response> answers = Parallel.run(FaultProxies.MAX_PENDING * 4,
                i -> get("/orders/" + id));
        FaultProxies.postgres.unfreeze();
        for (Response answer : answers) {
            assertEquals(503, answer.statusCode(), answer.asString());
            assertEquals("1", answer.header("Retry-After"));
            assertEquals("application/problem+json", answer.contentType());
        }
        double shedAfter = shedCount();
        assertTrue(shedAfter - shedBefore >= FaultProxies.MAX_PENDING,
                "requests beyond the bound were refused at once, not queued");
        get("/orders/" + id).then().statusCode(200);
    }

    private static double shedCount() {
        return Management.given().get("/q/metrics").asString().lines()
                .filter(l -> l.startsWith("orderflow_db_shed_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    private static boolean relayTookItsTurnSince(String since) {
        return Sql.count("select count(*) from event_cursors where name = 'redis-stream' and updated_at >"
                + " cast(? as timestamptz)", since) > 0;
    }

    /** Holds the order's row lock from another session, so the service's CAS waits on it. */
    private static Connection lockOrder(String id) throws Exception {
        return FaultProxies.lockOrder(id);
    }

    private static void awaitCasBlockedOnLock() throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (Sql.count("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                    + " and query like 'with rule %'") > 0) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the service's CAS never reached the locked row");
    }

    private static void awaitNoCasRunning() throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (Sql.count("select count(*) from pg_stat_activity where state = 'active'"
                    + " and query like 'with rule %'") == 0) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the cut statement is still running");
    }

    private static void awaitHistory(String id, String event, long rows) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (Sql.historyCount(id, event) == rows) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the statement never committed");
    }
}
