package io.orderflow.idempotency;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.Sql;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Another replica holds a key in Redis (its in-flight marker stands there) for a request with another body. The
 * marker is written before PostgreSQL decides, so it is no verdict; but waiting for it cannot turn this body into a
 * repeat either. The repeat goes to the database at once instead of polling Redis for the in-flight wait: the dedup
 * record, when it is there, refuses it with 422; when nothing is there, this body is the first PostgreSQL sees. A
 * marker with the same body that outlives its holder's answer is found out by asking PostgreSQL early.
 */
@QuarkusTest
class ForeignMarkerTest {

    private static final Pattern SET_CALLS = Pattern.compile("cmdstat_set:calls=(\\d+)");

    @Inject
    RedisDataSource redis;

    private static String marker(String customer, String key) {
        return "idem:customer:" + customer + " POST /orders :" + key;
    }

    private static ValidatableResponse create(String customer, String key, Map<String, Object> body) {
        return Auth.customer(customer).contentType(ContentType.JSON).header("Idempotency-Key", key).body(body)
                .post("/orders").then();
    }

    @Test
    void shouldRefuseAnotherBodyFromTheStoredRecordWithoutWaitingOnTheHoldersMarker() throws Exception {
        String customer = newCustomer();
        String key = newKey();
        Map<String, Object> first = orderBody(customer);
        create(customer, key, first).statusCode(201);
        String cached = awaitCached(marker(customer, key));
        // the holder committed on another replica and has not yet replaced its marker with its answer
        redis.value(String.class).setex(marker(customer, key), 60, "p:" + new JsonObject(cached).getString("f"));
        Map<String, Object> other = new HashMap<>(first);
        other.put("currency", "USD");

        long setsBefore = setCalls();
        create(customer, key, other).statusCode(422).contentType("application/problem+json")
                .body("type", is("https://orderflow.dev/problems/idempotency-key-reused"));
        long asked = setCalls() - setsBefore;

        assertTrue(asked <= 2, "asked Redis " + asked + " times: the repeat polled the marker instead of asking"
                + " PostgreSQL");
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", customer));
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ? and currency = 'USD'", customer));
    }

    @Test
    void shouldLetPostgresDecideWhenAnotherBodysHolderHasWrittenNothingYet() {
        String customer = newCustomer();
        String key = newKey();
        String marker = marker(customer, key);
        redis.value(String.class).setex(marker, 60, "p:" + "0".repeat(64));
        try {
            create(customer, key, orderBody(customer)).statusCode(201);
            create(customer, key, orderBody(customer)).statusCode(201).header("Idempotent-Replayed", "true");
        } finally {
            redis.key().del(marker);
        }
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    @Test
    void shouldReplayFromPostgresAndRepairTheCacheWhenAMarkerOutlivedItsHoldersAnswer() throws Exception {
        String customer = newCustomer();
        String key = newKey();
        Map<String, Object> body = orderBody(customer);
        String id = create(customer, key, body).statusCode(201).extract().path("id");
        String cached = awaitCached(marker(customer, key));
        // the holder committed, but its answer never reached Redis (a timeout): its in-flight marker stayed behind
        redis.value(String.class).setex(marker(customer, key), 60, "p:" + new JsonObject(cached).getString("f"));

        long setsBefore = setCalls();
        create(customer, key, body).statusCode(201).header("Idempotent-Replayed", "true").body("id", is(id));
        long asked = setCalls() - setsBefore;

        assertTrue(asked < 60, "asked Redis " + asked + " times: the repeat waited out the whole in-flight wait"
                + " instead of asking PostgreSQL");
        assertTrue(awaitCached(marker(customer, key)).contains(id), "the stale marker is replaced by the answer");
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    private String awaitCached(String marker) throws InterruptedException {
        for (int i = 0; i < 1000; i++) {
            String value = redis.value(String.class).get(marker);
            if (value != null && value.startsWith("d:")) {
                return value.substring(2);
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the answer was never cached under " + marker);
    }

    private long setCalls() {
        Matcher m = SET_CALLS.matcher(redis.execute("INFO", "commandstats").toString());
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
