package io.orderflow.idempotency;

import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.support.Auth;
import io.orderflow.support.Await;
import io.orderflow.support.CapturedLog;
import io.orderflow.support.KillableRedis;
import io.orderflow.support.Management;
import io.orderflow.support.Meters;
import io.orderflow.support.PublicHealth;
import io.orderflow.support.RedisCache;
import io.orderflow.support.Sql;
import io.orderflow.support.TestServices;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Redis really stopped and started again under the service: exactly-once holds, only the speed changes. Here a
 * single Redis failure opens the breaker (breaker-failures 1), so each failure is also a WARN in the log.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(RedisOutageTest.OwnRedis.class)
class RedisOutageTest {

    public static class OwnRedis implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(KillableRedis.class));
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("idempotency.redis.breaker-open", "300ms", "idempotency.redis.breaker-failures", "1");
        }
    }

    @Inject
    RedisIdempotencyCache shutter;

    @Inject
    RedisDataSource redis;

    @Inject
    MeterRegistry registry;

    /** The breaker lets a probe through once it has been open for breaker-open (300 ms here). */
    private void awaitBreakerClosed() {
        Await.until(() -> !shutter.isBypassed(), "the Redis breaker to close");
    }

    private double counter(String name, String... tags) {
        return Meters.count(registry, name, tags);
    }

    private static Response create(String key, String customer) {
        return createAs(customer, key, orderBody(customer));
    }

    @Test
    void shouldKeepExactlyOnceWhileRedisIsDownAndUseItAgainWhenItReturns() {
        String customer = "c-outage-" + UUID.randomUUID();
        String before = newKey();
        Response first = create(before, customer);
        assertEquals(201, first.statusCode());
        // Redis quiet before it dies: the first answer cached and the breaker closed (on a busy machine one slow
        // command opens it, and an outage that fell entirely inside that opening would open nothing)
        RedisCache.awaitCached(redis, before);
        awaitBreakerClosed();

        KillableRedis.stopServer();
        try {
            double fallbacks = counter("orderflow.idempotency.redis.fallbacks");
            double openings = counter("orderflow.idempotency.redis.breaker.openings");
            Response replayWithoutRedis = create(before, customer);
            assertEquals(201, replayWithoutRedis.statusCode());
            assertArrayEquals(first.asByteArray(), replayWithoutRedis.asByteArray());

            String during = newKey();
            String id = create(during, customer).then().statusCode(201).extract().path("id");
            create(during, customer).then().statusCode(201).header("Idempotent-Replayed", "true");
            String paid = paidOrder();
            post(paid, "ship", shipBody()).then().statusCode(200);
            post(paid, "ship", shipBody()).then().statusCode(200).header("Idempotent-Replayed", "true");
            assertEquals(1, Sql.historyCount(paid, "SHIP"));
            assertTrue(counter("orderflow.idempotency.redis.fallbacks") > fallbacks, "fallbacks are counted");
            assertTrue(counter("orderflow.idempotency.redis.breaker.openings") > openings,
                    "failures in a row open the breaker: requests stop asking a dead Redis");
            // the health output is public: it says degraded, and names no exception class or message
            Management.given().get("/q/health/ready").then().statusCode(200);
            assertEquals(Map.of("redis", "degraded"),
                    PublicHealth.assertNamesNoFailure().get("/q/health/ready idempotency-fast-path"));
            assertEquals(2, Sql.count("select count(*) from orders where customer_id = ?", customer));
            assertEquals(id, Sql.string("select order_id::text from idempotency_keys where idem_key = ?", during));
        } finally {
            KillableRedis.startServer();
        }

        Management.given().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'idempotency-fast-path' }.data.redis", Matchers.is("up"));
        awaitBreakerClosed();
        String after = newKey();
        create(after, customer).then().statusCode(201);
        RedisCache.awaitCached(redis, after);
        // The client reconnects to the restarted Redis by itself; on a loaded machine one of its first commands may
        // still be slow and open the breaker (one failure does, here) for a repeat or two. So the test waits for the
        // condition it is about, a repeat answered from Redis, and every repeat meanwhile must be the stored answer.
        double redisReplays = counter("orderflow.idempotency.replays", "layer", "redis");
        Await.until(() -> {
            create(after, customer).then().statusCode(201).header("Idempotent-Replayed", "true");
            return counter("orderflow.idempotency.replays", "layer", "redis") > redisReplays;
        }, "a repeat answered from Redis once it is back");
        assertEquals(3, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    /**
     * Redis dies after the request claimed its key and before its answer is cached: the answer is the committed
     * one, the failed cache write is counted and logged (not swallowed), and the repeat is replayed from PostgreSQL.
     * The request is held between the two Redis commands by a row lock the test holds on the order.
     */
    @Test
    void shouldAnswerAsCommittedAndLogTheCacheWriteWhenRedisDiesBeforeTheAnswerIsCached() throws Exception {
        String order = paidOrder();
        String key = newKey();
        double fallbacks = counter("orderflow.idempotency.redis.fallbacks");
        Response shipped;
        try (CapturedLog log = CapturedLog.start();
                Connection lock = TestServices.get().postgres().connect(TestServices.QUARKUS_DATABASE)) {
            lock.setAutoCommit(false);
            try (PreparedStatement row = lock.prepareStatement("select 1 from orders where id = ?::uuid for update")) {
                row.setString(1, order);
                row.executeQuery().close();
            }
            CompletableFuture<Response> ship = CompletableFuture.supplyAsync(
                    () -> postKeyed(order, "ship", shipBody(), key));
            try {
                awaitBlockedOnTheLock(ship);
                KillableRedis.stopServer(); // the key is claimed in Redis; its answer is not cached yet
                lock.rollback();
                shipped = ship.join();
                awaitLogged(log, "Redis failing");
            } finally {
                KillableRedis.startServer();
            }
            assertEquals(200, shipped.statusCode(), shipped.asString());
            assertEquals("SHIPPED", shipped.path("status"));
            assertTrue(counter("orderflow.idempotency.redis.fallbacks") > fallbacks, "the failed write is counted");
        }
        assertEquals(1, Sql.historyCount(order, "SHIP"));
        Response repeat = postKeyed(order, "ship", shipBody(), key);
        assertEquals(200, repeat.statusCode());
        assertEquals("true", repeat.header("Idempotent-Replayed"));
        assertArrayEquals(shipped.asByteArray(), repeat.asByteArray(), "the stored first answer, from PostgreSQL");
        assertEquals(1, Sql.historyCount(order, "SHIP"));
    }

    /** Until the service's statement waits on the row lock (so its Redis claim is done); fails if SHIP ended first. */
    private static void awaitBlockedOnTheLock(CompletableFuture<Response> ship) throws InterruptedException {
        for (int i = 0; i < 400 && !ship.isDone(); i++) {
            if (Sql.count("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                    + " and datname = current_database() and pid <> pg_backend_pid()") > 0) {
                return;
            }
            Thread.sleep(25);
        }
        throw new AssertionError("the SHIP never waited on the locked order: " + (ship.isDone() ? ship.join()
                .asString() : "still running"));
    }

    private static void awaitLogged(CapturedLog log, String text) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (log.atLeast(Level.WARNING).stream().anyMatch(line -> line.contains(text))) {
                return;
            }
            Thread.sleep(25);
        }
        throw new AssertionError("no WARN containing '" + text + "'; logged: " + log.atLeast(Level.INFO));
    }
}
