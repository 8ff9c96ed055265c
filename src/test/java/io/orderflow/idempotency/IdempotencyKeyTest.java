package io.orderflow.idempotency;

import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.support.Auth;
import io.orderflow.support.Await;
import io.orderflow.support.Callbacks;
import io.orderflow.support.Contract;
import io.orderflow.support.Management;
import io.orderflow.support.Meters;
import io.orderflow.support.Parallel;
import io.orderflow.support.RedisCache;
import io.orderflow.support.Sql;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/** Idempotency-Key semantics over HTTP, against the real Redis and PostgreSQL. */
@QuarkusTest
class IdempotencyKeyTest {

    /** Customers are new in every run: the test database outlives runs. */
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    private static final String TYPES = "https://orderflow.dev/problems/";

    @Inject
    MeterRegistry registry;

    @Inject
    RedisDataSource redis;

    @Inject
    RedisIdempotencyCache shutter;

    private static Response create(String key, Map<String, Object> body) {
        return createAs((String) body.get("customerId"), key, body);
    }

    private static Response createWithInvalidKey(String key, String customer) {
        return Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                .header("Idempotency-Key", key).body(orderBody(customer)).post("/orders");
    }

    private double counter(String name, String... tags) {
        return Meters.count(registry, name, tags);
    }

    @Test
    void shouldReplayTheFirstResponseByteForByteWhenTheKeyIsReused() {
        String key = newKey();
        Response first = create(key, orderBody("c-replay-" + run));
        Response again = create(key, orderBody("c-replay-" + run));
        assertEquals(201, again.statusCode());
        assertEquals("true", again.header("Idempotent-Replayed"));
        assertEquals(first.header("Location"), again.header("Location"));
        assertEquals(first.header("ETag"), again.header("ETag"));
        assertArrayEquals(first.asByteArray(), again.asByteArray());
        assertEquals(1, Sql.count("select count(*) from orders where id = ?", UUID.fromString(first.path("id"))));
    }

    @Test
    void shouldRefuseTheSameKeyWithADifferentBody() {
        String key = newKey();
        String customer = "c-a-" + run;
        create(key, orderBody(customer)).then().statusCode(201);
        double before = counter("orderflow.idempotency.fingerprint.mismatches");
        Map<String, Object> otherBody = Map.of("customerId", customer, "currency", "USD",
                "items", List.of(Map.of("sku", "OTHER", "quantity", 1, "unitPrice", 1)));
        create(key, otherBody).then().statusCode(422).contentType("application/problem+json")
                .body("type", is(TYPES + "idempotency-key-reused"));
        assertEquals(before + 1, counter("orderflow.idempotency.fingerprint.mismatches"));
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ? and currency = 'USD'", customer));
    }

    @Test
    void shouldRequireAWellFormedKeyOnCreateAndPay() {
        String customer = "c-nokey-" + run;
        Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                .body(orderBody(customer)).post("/orders")
                .then().statusCode(400).body("type", is(TYPES + "idempotency-key-missing"));
        createWithInvalidKey("x".repeat(256), customer).then().statusCode(400)
                .body("type", is(TYPES + "idempotency-key-invalid"));
        createWithInvalidKey("bad\u00e9key", customer).then().statusCode(400);
        String id = createOrder();
        callerFor(id, "pay").filter(Contract.invalidRequest()).contentType(ContentType.JSON).body(payBody())
                .post("/orders/" + id + "/pay").then().statusCode(400).body("type", is(TYPES + "idempotency-key-missing"));
        create("\"quoted-key-" + UUID.randomUUID() + "\"", orderBody("c-quoted-" + run)).then().statusCode(201);
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    @Test
    void shouldReplayAStoredIllegalTransitionOutcome() {
        String id = createOrder();
        String key = newKey();
        Response first = postKeyed(id, "ship", shipBody(), key);
        assertEquals(409, first.statusCode());
        // the order becomes shippable, but the key's outcome was a 409 and stays one
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        Callbacks.deliver(Callbacks.success(id, AMOUNT, "EUR", "t-" + id))
                .then().statusCode(200);
        Response again = postKeyed(id, "ship", shipBody(), key);
        assertEquals(409, again.statusCode());
        assertEquals("true", again.header("Idempotent-Replayed"));
        assertEquals(first.asString(), again.asString());
        Auth.operator().get("/orders/" + id).then().body("status", is("PAID"));
    }

    @Test
    void shouldScopeAKeyToItsOperationAndOrder() {
        String key = newKey();
        String a = paidOrder();
        String b = paidOrder();
        postKeyed(a, "ship", shipBody(), key).then().statusCode(200).header("Idempotent-Replayed", nullValue());
        postKeyed(b, "ship", shipBody(), key).then().statusCode(200).header("Idempotent-Replayed", nullValue());
        postKeyed(a, "deliver", Map.of(), key).then().statusCode(200).body("status", is("DELIVERED"));
        assertEquals(1, Sql.historyCount(b, "SHIP"));
    }

    @Test
    void shouldAnswerARepeatFromRedisWithoutAnyDatabaseStatement() throws SQLException {
        // Redis in use (the shutter closed: a slow command earlier in the run may have opened it) and the first
        // answer cached there, or the repeat rightly goes to PostgreSQL
        Await.until(() -> !shutter.isBypassed(), "the Redis shutter to close");
        String key = newKey();
        create(key, orderBody("c-fast-" + run)).then().statusCode(201);
        Await.until(() -> RedisCache.isCached(redis, key), "the first answer cached in Redis");
        Await.until(() -> !shutter.isBypassed(), "the Redis shutter to close");
        double redisReplays = counter("orderflow.idempotency.replays", "layer", "redis");
        // The service's own statement counter also counts its background work (the feed, webhook deliveries), so
        // it cannot tell what this request did. Instead the test takes the tables a repeat would read away from the
        // service while it asks: any statement of the repeat on them would wait behind these locks until
        // PostgreSQL's statement timeout ended it (a 503), so a 201 replay means the request sent none.
        try (Connection tables = Sql.connect()) {
            tables.setAutoCommit(false);
            try (Statement lock = tables.createStatement()) {
                lock.execute("lock table idempotency_keys, orders in access exclusive mode");
            }
            create(key, orderBody("c-fast-" + run)).then().statusCode(201).header("Idempotent-Replayed", "true");
            tables.rollback();
        }
        assertEquals(redisReplays + 1, counter("orderflow.idempotency.replays", "layer", "redis"));
    }

    @Test
    void shouldFallBackToTheDatabaseWhenRedisLostTheKey() {
        String key = newKey();
        Response first = create(key, orderBody("c-lost-" + run));
        RedisCache.forgetAfterCached(redis, key);
        double dbReplays = counter("orderflow.idempotency.replays", "layer", "database");
        Response again = create(key, orderBody("c-lost-" + run));
        assertEquals(201, again.statusCode());
        assertEquals(first.asString(), again.asString());
        assertEquals(dbReplays + 1, counter("orderflow.idempotency.replays", "layer", "database"));
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", ("c-lost-" + run)));
    }

    @Test
    void shouldRefuseALateRetryWhoseKeyHasExpired() {
        String key = newKey();
        String id = create(key, orderBody("c-late-" + run)).then().statusCode(201).extract().path("id");
        Sql.update("update idempotency_keys set state = 'EXPIRED', expired_at = now() where idem_key = ?", key);
        RedisCache.forgetAfterCached(redis, key);
        create(key, orderBody("c-late-" + run)).then().statusCode(422)
                .body("type", is(TYPES + "idempotency-key-expired"));
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", "c-late-" + run));
        assertEquals(id, Sql.string("select order_id::text from idempotency_keys where idem_key = ?", key));
    }

    @Test
    void shouldExposeReplayAndConflictCountersAsMetrics() {
        Management.given().get("/q/metrics").then().statusCode(200)
                .body(containsString("orderflow_idempotency_replays_total{layer=\"redis\"}"))
                .body(containsString("orderflow_idempotency_replays_total{layer=\"database\"}"))
                .body(containsString("orderflow_idempotency_in_flight_total"))
                .body(containsString("orderflow_idempotency_fingerprint_mismatches_total"))
                .body(containsString("orderflow_idempotency_redis_fallbacks_total"));
    }

    @Test
    void shouldNeverShowOneCallersStoredResponseToAnotherCallerUsingTheSameKey() {
        String key = newKey();
        Response first = createAs(("c-alice-" + run), key, orderBody("c-alice-" + run));
        Response other = createAs(("c-bob-" + run), key, orderBody("c-bob-" + run));
        assertEquals(201, other.statusCode());
        assertEquals(null, other.header("Idempotent-Replayed"));
        Assertions.assertNotEquals((String) first.path("id"), other.path("id"));
        assertEquals(("c-bob-" + run), other.path("customerId"));
    }

    @Test
    void shouldHandConcurrentRepeatsOnOneReplicaTheFirstCopysAnswer() {
        String key = newKey();
        Map<String, Object> body = orderBody("c-herd-" + run);
        double handedOver = counter("orderflow.idempotency.replays", "layer", "replica");
        List<Response> answers = Parallel.run(40, i -> create(key, body));
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", "c-herd-" + run));
        String id = answers.get(0).path("id");
        for (Response answer : answers) {
            assertEquals(201, answer.statusCode(), "no repeat waits long enough to get 409 in-flight");
            assertEquals(id, answer.path("id"));
            assertArrayEquals(answers.get(0).asByteArray(), answer.asByteArray(), "one answer, byte for byte");
        }
        assertEquals(39, answers.stream().filter(a -> "true".equals(a.header("Idempotent-Replayed"))).count());
        Assertions.assertTrue(counter("orderflow.idempotency.replays", "layer", "replica")
                > handedOver, "40 copies released together: some meet their first copy on this replica");
    }

    @Test
    void shouldRefuseAConcurrentRepeatWithAnotherBodyEvenWhenItMeetsTheFirstCopy() {
        String key = newKey();
        String customer = "c-mix-" + run;
        List<Response> answers = Parallel.run(20, i -> {
            Map<String, Object> body = new HashMap<>(orderBody(customer));
            body.put("currency", i % 2 == 0 ? "EUR" : "USD");
            return create(key, body);
        });
        long created = answers.stream().filter(a -> a.statusCode() == 201).count();
        long refused = answers.stream().filter(a -> a.statusCode() == 422).count();
        assertEquals(20, created + refused, "201 for the body that won, 422 for the other");
        assertEquals(10, refused, "every copy with the losing body is refused");
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    @Test
    void shouldLeaveTheKeyFreeAfterA412SoTheCorrectedIfMatchRunsAndIsThenReplayed() {
        String id = paidOrder();
        String current = get("/orders/" + id).header("ETag");
        int version = Integer.parseInt(current.replace("\"", ""));
        String key = newKey();
        for (int i = 0; i < 2; i++) {
            shipIfMatch(id, key, "\"" + (version - 1) + "\"").then().statusCode(412).header("Idempotent-Replayed", nullValue())
                    .body("type", is(TYPES + "version-mismatch"), "currentVersion", is(version));
        }
        assertEquals(0, storedUnder(key), "a refusal of a request that never started is not stored");

        Response applied = shipIfMatch(id, key, current);
        applied.then().statusCode(200).header("Idempotent-Replayed", nullValue()).body("status", is("SHIPPED"));
        Response repeat = shipIfMatch(id, key, current);
        repeat.then().statusCode(200).header("Idempotent-Replayed", "true");
        assertArrayEquals(applied.asByteArray(), repeat.asByteArray());
        assertEquals(1, storedUnder(key));
        assertEquals(1, Sql.historyCount(id, "SHIP"));
    }

    @Test
    void shouldNotStoreA404UnderTheKey() {
        String key = newKey();
        postKeyed(UUID.randomUUID().toString(), "ship", shipBody(), key).then().statusCode(404)
                .body("type", is(TYPES + "not-found"));
        assertEquals(0, storedUnder(key));
    }

    @Test
    void shouldStoreARefusalTheStateMachineDecidedAndReplayItAfterTheOrderMoved() {
        String id = createOrder();
        String key = newKey();
        Response refused = postKeyed(id, "ship", shipBody(), key);
        refused.then().statusCode(409).header("Idempotent-Replayed", nullValue())
                .body("type", is(TYPES + "illegal-transition"));
        assertEquals(1, storedUnder(key), "the operation started and the state machine decided");
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        Callbacks.deliver(Callbacks.success(id, AMOUNT, "EUR",
                "txn-" + UUID.randomUUID())).then().statusCode(200);

        Response repeat = postKeyed(id, "ship", shipBody(), key);
        repeat.then().statusCode(409).header("Idempotent-Replayed", "true");
        assertArrayEquals(refused.asByteArray(), repeat.asByteArray());
        assertEquals(0, Sql.historyCount(id, "SHIP"));
    }

    private static Response shipIfMatch(String id, String key, String ifMatch) {
        return Auth.operator().contentType(ContentType.JSON).header("Idempotency-Key", key).header("If-Match", ifMatch)
                .body(shipBody()).post("/orders/" + id + "/ship");
    }

    private static long storedUnder(String key) {
        return Sql.count("select count(*) from idempotency_keys where idem_key = ?", key);
    }
}
