package io.orderflow.order;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.support.Callbacks;
import io.orderflow.support.Sql;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * How many SQL statements each kind of request sends: the figure the service's throughput rests on (the benchmark
 * compares it with pgbench running the same statements). Counted by {@code orderflow_db_statements_total}.
 */
@QuarkusTest
class RoundTripsTest {

    @Inject
    MeterRegistry registry;

    @Inject
    RedisDataSource redis;

    private double statements() {
        return io.orderflow.support.Meters.count(registry, "orderflow.db.statements");
    }

    /** The statements {@code request} sent, and its response. */
    private record Counted(double statements, Response response) {
    }

    private Counted counting(Supplier<Response> request) {
        double before = statements();
        Response response = request.get();
        return new Counted(statements() - before, response);
    }

    @Test
    void aTransitionReadsTheOrderOnceAndMovesItWithOneStatement() {
        String id = paidOrder();
        Counted ship = counting(() -> post(id, "ship", shipBody()));
        ship.response().then().statusCode(200).body("status", is("SHIPPED")).header("Idempotent-Replayed", nullValue());
        assertEquals(2, ship.statements());
        assertEquals(1, Sql.historyCount(id, "SHIP"));
    }

    @Test
    void aDuplicateWithoutKeyIsRecognisedByTheReadAlone() {
        String id = paidOrder();
        post(id, "ship", shipBody()).then().statusCode(200);
        Counted again = counting(() -> post(id, "ship", shipBody()));
        again.response().then().statusCode(200).header("Idempotent-Replayed", "true");
        assertEquals(1, again.statements(), "the history comes with the order when the table refuses the event");
        assertEquals(1, Sql.historyCount(id, "SHIP"));
    }

    @Test
    void anIllegalTransitionIsRefusedAfterTheReadAlone() {
        String id = createOrder();
        Counted deliver = counting(() -> post(id, "deliver", java.util.Map.of()));
        deliver.response().then().statusCode(409);
        assertEquals(1, deliver.statements());
    }

    @Test
    void aPaymentCallbackReadsTheOrderOnceToCheckTheAmountAndToMoveIt() {
        String id = createOrder();
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        String event = Callbacks.success(id, AMOUNT, "EUR", "txn-" + UUID.randomUUID());
        Counted callback = counting(() -> Callbacks.deliver(event));
        callback.response().then().statusCode(200).body("outcome", is("applied"));
        assertEquals(2, callback.statements(), "read + compare-and-set with its dedup record");
        Counted redelivery = counting(() -> Callbacks.deliver(event));
        redelivery.response().then().statusCode(200);
        assertEquals(0, redelivery.statements(), "Redis answers the redelivery");
    }

    @Test
    void aKeyedRepeatThatRedisForgotCostsTheReadAndOneStatementThatFindsTheStoredAnswer() {
        String id = paidOrder();
        String key = newKey();
        Response first = postKeyed(id, "ship", shipBody(), key);
        first.then().statusCode(200);
        io.orderflow.support.RedisCache.forgetAfterCached(redis, key);
        Counted repeat = counting(() -> postKeyed(id, "ship", shipBody(), key));
        repeat.response().then().statusCode(200).header("Idempotent-Replayed", "true");
        assertArrayEquals(first.asByteArray(), repeat.response().asByteArray(), "the stored first response");
        assertEquals(2, repeat.statements());
    }
}
