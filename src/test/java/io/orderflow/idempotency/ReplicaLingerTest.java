package io.orderflow.idempotency;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.support.Meters;
import io.orderflow.support.TracedWithLinger;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** With idempotency.replica.linger on (as in production), a repeat right behind the first is answered from memory. */
@QuarkusTest
@Tag("profile")
@TestProfile(TracedWithLinger.class)
class ReplicaLingerTest {

    @Inject
    MeterRegistry registry;

    @Inject
    RedisDataSource redis;

    private double counter(String name, String... tags) {
        return Meters.count(registry, name, tags);
    }

    @Test
    void aRepeatRightBehindTheFirstIsAnsweredFromThisReplicasMemoryWithoutRedisOrSql() {
        String customer = newCustomer();
        String key = newKey();
        Response first = createAs(customer, key, orderBody(customer));
        first.then().statusCode(201);
        redis.execute("FLUSHDB");
        double statements = counter("orderflow.db.statements");
        double fromMemory = counter("orderflow.idempotency.replays", "layer", "replica");
        Response repeat = createAs(customer, key, orderBody(customer));
        repeat.then().statusCode(201).header("Idempotent-Replayed", "true");
        assertArrayEquals(first.asByteArray(), repeat.asByteArray());
        assertEquals(fromMemory + 1, counter("orderflow.idempotency.replays", "layer", "replica"));
        assertEquals(statements, counter("orderflow.db.statements"), "neither Redis (flushed) nor PostgreSQL asked");
    }

    @Test
    void aRepeatWithAnotherBodyIsRefusedEvenFromMemory() {
        String customer = newCustomer();
        String key = newKey();
        createAs(customer, key, orderBody(customer)).then().statusCode(201);
        Map<String, Object> other = new HashMap<>(orderBody(customer));
        other.put("currency", "USD");
        createAs(customer, key, other).then().statusCode(422);
    }
}
