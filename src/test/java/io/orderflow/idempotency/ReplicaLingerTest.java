package io.orderflow.idempotency;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.support.Meters;
import io.orderflow.support.Sql;
import io.orderflow.support.TracedWithLinger;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
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
    void aRepeatRightBehindTheFirstIsAnsweredFromThisReplicasMemoryWithoutRedisOrSql() throws SQLException {
        String customer = newCustomer();
        String key = newKey();
        Response first = createAs(customer, key, orderBody(customer));
        first.then().statusCode(201);
        redis.execute("FLUSHDB");
        double fromMemory = counter("orderflow.idempotency.replays", "layer", "replica");
        // Redis is empty, and the tables a repeat would read are taken away from the service while it asks: the
        // service's statement counter also counts its background work (the feed) and a first request's record
        // still being stored on a loaded machine, but any statement of the repeat on these tables would wait behind
        // the locks until PostgreSQL's statement timeout ended it (a 503): a 201 replay means it sent none.
        Response repeat;
        try (Connection tables = Sql.connect()) {
            tables.setAutoCommit(false);
            try (Statement lock = tables.createStatement()) {
                lock.execute("lock table idempotency_keys, orders in access exclusive mode");
            }
            repeat = createAs(customer, key, orderBody(customer));
            tables.rollback();
        }
        repeat.then().statusCode(201).header("Idempotent-Replayed", "true");
        assertArrayEquals(first.asByteArray(), repeat.asByteArray());
        assertEquals(fromMemory + 1, counter("orderflow.idempotency.replays", "layer", "replica"),
                "answered from this replica's memory, neither Redis (flushed) nor PostgreSQL asked");
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
