package io.orderflow.order;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.support.Callbacks;
import io.orderflow.support.RedisCache;
import io.orderflow.support.Sql;
import io.orderflow.support.WireRoundTrips;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How many round trips to PostgreSQL each kind of request costs, counted on the wire (ReadyForQuery messages
 * through a proxy, so an implicit BEGIN or COMMIT would count too): the figure the service's throughput rests on
 * (the benchmark compares it with pgbench running the same statements). Steady state: the service keeps each
 * statement prepared per connection, and a statement's first use on a connection costs one more round trip (the
 * prepare), so each test sends its kind of request once before it counts, over a pool of one connection.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(RoundTripsTest.OnTheWire.class)
class RoundTripsTest {

    public static class OnTheWire implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(WireRoundTrips.class));
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            // one connection, and no scheduled job of its own on it: the count is the request's alone
            return Map.of("quarkus.datasource.reactive.max-size", "1", "payments.refunds.every", "off",
                    "payments.reconcile.every", "off", "idempotency.sweeper.every", "off",
                    "events.sequencer.every", "off", "events.relay.every", "off", "events.webhooks.every", "off",
                    "events.purge.every", "off");
        }
    }

    @Inject
    RedisDataSource redis;

    /** The round trips {@code request} cost, and its response. */
    private record Counted(long roundTrips, Response response) {
    }

    private static Counted counting(Supplier<Response> request) {
        long before = WireRoundTrips.count();
        Response response = request.get();
        return new Counted(WireRoundTrips.count() - before, response);
    }

    @Test
    void shouldMoveAnOrderInOneRoundTripWithHistoryAndRecord() {
        postKeyed(paidOrder(), "ship", shipBody(), newKey()).then().statusCode(200);
        String id = paidOrder();
        Counted ship = counting(() -> postKeyed(id, "ship", shipBody(), newKey()));
        ship.response().then().statusCode(200).body("status", is("SHIPPED")).header("Idempotent-Replayed", nullValue());
        assertEquals(1, ship.roundTrips(), "the compare-and-set is the read");
        assertEquals(1, Sql.historyCount(id, "SHIP"));
    }

    @Test
    void shouldRecogniseADuplicateWithoutKeyInOneRoundTrip() {
        String warm = paidOrder();
        post(warm, "ship", shipBody()).then().statusCode(200);
        post(warm, "ship", shipBody()).then().statusCode(200);
        String id = paidOrder();
        post(id, "ship", shipBody()).then().statusCode(200);
        Counted again = counting(() -> post(id, "ship", shipBody()));
        again.response().then().statusCode(200).header("Idempotent-Replayed", "true");
        assertEquals(1, again.roundTrips(), "the statement that found nothing to move returned the order and history");
        assertEquals(1, Sql.historyCount(id, "SHIP"));
    }

    @Test
    void shouldRefuseAnIllegalTransitionInOneRoundTrip() {
        post(createOrder(), "deliver", Map.of()).then().statusCode(409);
        String id = createOrder();
        Counted deliver = counting(() -> post(id, "deliver", Map.of()));
        deliver.response().then().statusCode(409);
        assertEquals(1, deliver.roundTrips());
    }

    @Test
    void shouldApplyAPaymentCallbackInOneRoundTripAndItsRedeliveryInNone() {
        paidOrder();
        String id = createOrder();
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        String event = Callbacks.success(id, AMOUNT, "EUR", "txn-" + UUID.randomUUID());
        Counted callback = counting(() -> Callbacks.deliver(event));
        callback.response().then().statusCode(200).body("outcome", is("applied"));
        assertEquals(1, callback.roundTrips(), "amount check, compare-and-set and dedup record in one statement");
        Counted redelivery = counting(() -> Callbacks.deliver(event));
        redelivery.response().then().statusCode(200);
        assertEquals(0, redelivery.roundTrips(), "Redis answers the redelivery");
    }

    @Test
    void shouldAnswerAKeyedRepeatThatRedisForgotInTwoRoundTrips() {
        String warm = paidOrder();
        String warmKey = newKey();
        postKeyed(warm, "ship", shipBody(), warmKey).then().statusCode(200);
        RedisCache.forgetAfterCached(redis, warmKey);
        postKeyed(warm, "ship", shipBody(), warmKey).then().statusCode(200);
        String id = paidOrder();
        String key = newKey();
        Response first = postKeyed(id, "ship", shipBody(), key);
        first.then().statusCode(200);
        RedisCache.forgetAfterCached(redis, key);
        Counted repeat = counting(() -> postKeyed(id, "ship", shipBody(), key));
        repeat.response().then().statusCode(200).header("Idempotent-Replayed", "true");
        assertArrayEquals(first.asByteArray(), repeat.response().asByteArray(), "the stored first response");
        assertEquals(2, repeat.roundTrips(), "the transition finds the order moved, then the stored answer is read");
    }
}
