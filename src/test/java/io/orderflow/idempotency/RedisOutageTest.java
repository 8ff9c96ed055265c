package io.orderflow.idempotency;

import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.support.KillableRedis;
import io.orderflow.support.Sql;
import io.orderflow.support.Auth;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Redis really stopped and started again under the service: exactly-once holds, only the speed changes. */
@QuarkusTest
@TestProfile(RedisOutageTest.OwnRedis.class)
class RedisOutageTest {

    public static class OwnRedis implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(KillableRedis.class));
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("idempotency.redis.breaker-open", "300ms");
        }
    }

    @Inject
    RedisShutter shutter;

    @Inject
    MeterRegistry registry;

    private double counter(String name, String... tags) {
        return io.orderflow.support.Meters.count(registry, name, tags);
    }

    private static Response create(String key, String customer) {
        return createAs(customer, key, orderBody(customer));
    }

    @Test
    void shouldKeepExactlyOnceWhileRedisIsDownAndUseItAgainWhenItReturns() throws InterruptedException {
        String customer = "c-outage-" + UUID.randomUUID();
        String before = newKey();
        Response first = create(before, customer);
        assertEquals(201, first.statusCode());

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
            // the health output is public: it says degraded and names no exception class
            given().get("/q/health/ready").then().statusCode(200)
                    .body("checks.find { it.name == 'idempotency-fast-path' }.data.redis",
                            org.hamcrest.Matchers.is("degraded"))
                    .body(org.hamcrest.Matchers.not(org.hamcrest.Matchers.containsStringIgnoringCase("exception")));
            assertEquals(2, Sql.count("select count(*) from orders where customer_id = ?", customer));
            assertEquals(id, Sql.string("select order_id::text from idempotency_keys where idem_key = ?", during));
        } finally {
            KillableRedis.startServer();
        }

        given().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'idempotency-fast-path' }.data.redis", org.hamcrest.Matchers.is("up"));
        // the breaker lets a probe through once it has been open for breaker-open (300 ms here)
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
        while (shutter.isBypassed() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        String after = newKey();
        create(after, customer).then().statusCode(201);
        double redisReplays = counter("orderflow.idempotency.replays", "layer", "redis");
        create(after, customer).then().statusCode(201).header("Idempotent-Replayed", "true");
        assertEquals(redisReplays + 1, counter("orderflow.idempotency.replays", "layer", "redis"),
                "the fast path is used again once Redis is back");
        assertEquals(3, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }
}
