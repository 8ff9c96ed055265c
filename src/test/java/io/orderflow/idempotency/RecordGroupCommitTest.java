package io.orderflow.idempotency;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.support.Await;
import io.orderflow.support.Meters;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
import java.util.stream.IntStream;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/**
 * Group commit of the dedup records that are stored on their own (a duplicate's, a refusal's), over real HTTP and a
 * real PostgreSQL, with the production settings (two statements in flight, 64 rows). To make a batch form
 * deterministically, each test holds both statement slots with records whose inserts wait on uncommitted rows of
 * their keys that the test holds, queues its requests behind them, and then rolls those rows back: everything queued
 * leaves together.
 */
@QuarkusTest
class RecordGroupCommitTest {

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

        assertEquals(batchesBefore + 5, Meters.recorded(registry, "orderflow.idempotency.batch.rows"),
                "the two probes for the scopes and the two held records, each alone, then the 10 queued behind them"
                        + " together");
        assertEquals(rowsBefore + 14, Meters.recordedTotal(registry, "orderflow.idempotency.batch.rows"), "one statement for all 10");
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
     * Holds the records' two statement slots with duplicate SHIPs whose records wait on uncommitted rows of their
     * keys, sends {@code n} requests, waits until all of them wait for their batch, runs {@code meanwhile}, rolls the
     * rows back and returns the answers in order.
     */
    private List<Response> whileTheSlotIsHeld(int n, IntFunction<Response> request,
            IntSupplier meanwhile) {
        List<String> blockers = List.of(shippedOrder(), shippedOrder());
        List<String> blockerKeys = List.of(newKey(), newKey());
        List<String> scopes = blockers.stream().map(RecordGroupCommitTest::scopeOfShip).toList();
        try (Connection lock = Sql.connect()) {
            lock.setAutoCommit(false);
            for (int i = 0; i < blockers.size(); i++) {
                try (PreparedStatement insert = lock.prepareStatement("insert into idempotency_keys (scope, idem_key,"
                        + " tier, state, fingerprint, created_at, expires_at) values (?, ?, 'ORDERS', 'PENDING', 'held',"
                        + " now(), now() + interval '1 day')")) {
                    insert.setString(1, scopes.get(i));
                    insert.setString(2, blockerKeys.get(i));
                    insert.executeUpdate();
                }
            }
            List<CompletableFuture<Response>> held = IntStream.range(0, blockers.size())
                    .mapToObj(i -> CompletableFuture.supplyAsync(
                            () -> postKeyed(blockers.get(i), "ship", shipBody(), blockerKeys.get(i))))
                    .toList();
            Await.until(() -> Sql.count("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                    + " and datname = current_database()") == 2, "the blockers' records to wait on the held rows");
            CompletableFuture<List<Response>> answers = CompletableFuture.supplyAsync(() -> Parallel.run(n, request));
            Await.until(() -> Meters.gauge(registry, "orderflow.idempotency.batch.waiting") == n, n + " records to queue behind the held slots");
            meanwhile.getAsInt();
            lock.rollback();
            held.forEach(answer -> answer.join().then().statusCode(200));
            return answers.join();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
