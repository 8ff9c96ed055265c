package io.orderflow.idempotency;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.support.Await;
import io.orderflow.support.Meters;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Group commit of the dedup records that are stored on their own (a duplicate's, a refusal's), over real HTTP and a
 * real PostgreSQL. To make a batch form deterministically, each test holds the one statement slot (max-in-flight
 * 1) with a record whose insert waits on an uncommitted row of the same key that the test holds, queues its
 * requests behind it, and then rolls that row back: everything queued leaves together.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(RecordGroupCommitTest.Batching.class)
class RecordGroupCommitTest {

    public static class Batching implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("idempotency.records.group-commit", "true", "idempotency.records.max-in-flight", "1",
                    "idempotency.records.max-rows", "64");
        }
    }

    @Inject
    MeterRegistry registry;

    @Test
    void shouldStoreEveryDuplicatesOwnRecordInOneStatementAndReplayEachOneItsOwnAnswer() {
        List<String> shipped = IntStream.range(0, 10).mapToObj(i -> shippedOrder()).toList();
        List<String> keys = shipped.stream().map(id -> newKey()).toList();
        long batchesBefore = Meters.recorded(registry, "orderflow.idempotency.batch.rows");
        double rowsBefore = Meters.recordedTotal(registry, "orderflow.idempotency.batch.rows");

        List<Response> answers = whileTheSlotIsHeld(shipped.size(),
                i -> postKeyed(shipped.get(i), "ship", shipBody(), keys.get(i)));

        assertEquals(batchesBefore + 3, Meters.recorded(registry, "orderflow.idempotency.batch.rows"),
                "the probe for the scope and the held record, each alone, then the 10 queued behind them together");
        assertEquals(rowsBefore + 12, Meters.recordedTotal(registry, "orderflow.idempotency.batch.rows"), "one statement for all 10");
        for (int i = 0; i < shipped.size(); i++) {
            answers.get(i).then().statusCode(200).body("status", Matchers.is("SHIPPED"));
            assertEquals(1, Sql.count("select count(*) from idempotency_keys where idem_key = ? and state = 'DONE'",
                    keys.get(i)), "the batch stored the record of key " + i);
            Response replay = postKeyed(shipped.get(i), "ship", shipBody(), keys.get(i));
            replay.then().statusCode(200).header("Idempotent-Replayed", "true");
            assertEquals(answers.get(i).asString(), replay.asString(), "the batch stored each row's own answer");
            assertEquals(1, Sql.historyCount(shipped.get(i), "SHIP"));
        }
        assertEquals(List.of(), Sql.violations(shipped));
    }

    @Test
    void shouldAnswerARowWhoseKeyARacerStoredFirstFromTheRacersRecordAndStoreTheOthers() {
        List<String> shipped = IntStream.range(0, 6).mapToObj(i -> shippedOrder()).toList();
        List<String> keys = shipped.stream().map(id -> newKey()).toList();
        String scope = scopeOfShip(shipped.get(2));

        // while the requests queue, a racer (another replica, with another body) commits a record for key 2
        List<Response> answers = whileTheSlotIsHeld(shipped.size(),
                i -> postKeyed(shipped.get(i), "ship", shipBody(), keys.get(i)),
                () -> Sql.update("insert into idempotency_keys (scope, idem_key, tier, state, fingerprint, reply,"
                        + " created_at, expires_at) values (?, ?, 'ORDERS', 'DONE', 'another body',"
                        + " '{\"s\":200,\"c\":\"application/json\",\"h\":{},\"b\":\"e30=\"}'::jsonb, now(),"
                        + " now() + interval '1 day')", scope, keys.get(2)));

        answers.get(2).then().statusCode(422).contentType("application/problem+json")
                .body("type", Matchers.is("https://orderflow.dev/problems/idempotency-key-reused"));
        assertEquals("another body", Sql.string("select fingerprint from idempotency_keys where scope = ?"
                + " and idem_key = ?", scope, keys.get(2)), "the racer's record stands");
        for (int i = 0; i < shipped.size(); i++) {
            if (i != 2) {
                answers.get(i).then().statusCode(200);
                assertEquals(1, Sql.count("select count(*) from idempotency_keys where idem_key = ?"
                        + " and fingerprint <> 'another body'", keys.get(i)), "the others were stored");
            }
        }
    }

    private static String shippedOrder() {
        String id = paidOrder();
        post(id, "ship", shipBody()).then().statusCode(200);
        return id;
    }

    /** The scope a SHIP of {@code orderId} records its keys under, read off a record it made. */
    private static String scopeOfShip(String orderId) {
        String key = newKey();
        postKeyed(orderId, "ship", shipBody(), key).then().statusCode(200);
        return Sql.string("select scope from idempotency_keys where idem_key = ?", key);
    }

    private List<Response> whileTheSlotIsHeld(int n, IntFunction<Response> request) {
        return whileTheSlotIsHeld(n, request, () -> 0);
    }

    /**
     * Holds the records' one statement slot with a duplicate SHIP whose record waits on an uncommitted row of its
     * key, sends {@code n} requests, waits until all of them wait for their batch, runs {@code meanwhile}, rolls
     * the row back and returns the answers in order.
     */
    private List<Response> whileTheSlotIsHeld(int n, IntFunction<Response> request,
            java.util.function.IntSupplier meanwhile) {
        String blocker = shippedOrder();
        String blockerKey = newKey();
        String scope = scopeOfShip(blocker);
        try (Connection lock = Sql.connect()) {
            lock.setAutoCommit(false);
            try (PreparedStatement insert = lock.prepareStatement("insert into idempotency_keys (scope, idem_key,"
                    + " tier, state, fingerprint, created_at, expires_at) values (?, ?, 'ORDERS', 'PENDING', 'held',"
                    + " now(), now() + interval '1 day')")) {
                insert.setString(1, scope);
                insert.setString(2, blockerKey);
                insert.executeUpdate();
            }
            CompletableFuture<Response> held = CompletableFuture.supplyAsync(
                    () -> postKeyed(blocker, "ship", shipBody(), blockerKey));
            Await.until(() -> Sql.count("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                    + " and datname = current_database()") == 1, "the blocker's record to wait on the held row");
            CompletableFuture<List<Response>> answers = CompletableFuture.supplyAsync(() -> Parallel.run(n, request));
            Await.until(() -> Meters.gauge(registry, "orderflow.idempotency.batch.waiting") == n, n + " records to queue behind the held slot");
            meanwhile.getAsInt();
            lock.rollback();
            held.join().then().statusCode(200);
            return answers.join();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
