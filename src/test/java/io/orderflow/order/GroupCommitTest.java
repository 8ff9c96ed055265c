package io.orderflow.order;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.support.Callbacks;
import io.orderflow.support.Meters;
import io.orderflow.support.Await;
import io.orderflow.support.OutboxEvents;
import io.orderflow.support.Parallel;
import io.orderflow.support.RedisCache;
import io.orderflow.support.Sql;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Group commit over real HTTP and a real PostgreSQL. To make a batch form deterministically, each test holds the
 * one statement slot (max-in-flight 1) with a SHIP that waits on a row lock the test holds, queues its requests
 * behind it, and then releases the lock: everything queued leaves together.
 */
@QuarkusTest
@TestProfile(GroupCommitTest.Batching.class)
class GroupCommitTest {

    public static class Batching implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("orders.group-commit.enabled", "true", "orders.group-commit.max-in-flight", "1",
                    "orders.group-commit.max-rows", "64");
        }
    }

    @Inject
    MeterRegistry registry;

    @Inject
    RedisDataSource redis;

    @Test
    void shouldMoveEveryOrderOfABatchOnceAndJudgeTheRowsThatDidNotMoveOneByOne() {
        List<String> paid = IntStream.range(0, 12).mapToObj(i -> paidOrder()).toList();
        String unpaid = createOrder();
        String shipped = paidOrder();
        post(shipped, "ship", shipBody()).then().statusCode(200);
        String missing = UUID.randomUUID().toString();
        List<String> keys = paid.stream().map(id -> newKey()).toList();
        long batchesBefore = Meters.recorded(registry, "orderflow.transitions.batch.rows");
        double rowsBefore = Meters.recordedTotal(registry, "orderflow.transitions.batch.rows");

        List<Response> answers = whileTheSlotIsHeld(true, 15, 15, i -> i < 12
                ? postKeyed(paid.get(i), "ship", shipBody(), keys.get(i))
                : postKeyed(List.of(unpaid, shipped, missing).get(i - 12), "ship", shipBody(), newKey()));

        assertEquals(batchesBefore + 2, Meters.recorded(registry, "orderflow.transitions.batch.rows"), "the held SHIP alone, then the 15 queued behind it together");
        assertEquals(rowsBefore + 16, Meters.recordedTotal(registry, "orderflow.transitions.batch.rows"), "one statement for all 15");

        for (int i = 0; i < 12; i++) {
            answers.get(i).then().statusCode(200).header("Idempotent-Replayed", (String) null);
            assertEquals("SHIPPED", answers.get(i).path("status"));
            assertEquals(1, Sql.historyCount(paid.get(i), "SHIP"));
            Response replay = postKeyed(paid.get(i), "ship", shipBody(), keys.get(i));
            replay.then().statusCode(200).header("Idempotent-Replayed", "true");
            assertEquals(answers.get(i).asString(), replay.asString(), "the batch stored each row's own answer");
            List<String> events = OutboxEvents.of(paid.get(i));
            assertEquals(4, events.size(), "created, pay, payment_succeeded and the batch's ship");
            assertEquals(OutboxEvents.tree(get("/orders/" + paid.get(i)).asString()),
                    OutboxEvents.tree(events.get(3)).get("data").get("order"), "the batch wrote each row's own event");
        }
        answers.get(12).then().statusCode(409).contentType("application/problem+json")
                .body("type", org.hamcrest.Matchers.is("https://orderflow.dev/problems/illegal-transition"));
        answers.get(13).then().statusCode(200).header("Idempotent-Replayed", "true");
        answers.get(14).then().statusCode(404);
        assertEquals(1, Sql.historyCount(shipped, "SHIP"));
        assertEquals(0, Sql.historyCount(unpaid, "SHIP"));
        List<String> all = new ArrayList<>(paid);
        all.addAll(List.of(unpaid, shipped));
        assertEquals(List.of(), Sql.violations(all));
    }

    @Test
    void shouldNeverPutTwoTransitionsOfOneOrderInOneBatch() {
        List<String> orders = IntStream.range(0, 6).mapToObj(i -> paidOrder()).toList();
        // per order: SHIP, the same SHIP and a SHIP with another tracking number, queued together, and a CANCEL
        // (which carries a payment write, so it is never batched) racing them on its own
        List<Response> answers = whileTheSlotIsHeld(false, 18, 24, i -> {
            String id = orders.get(i / 4);
            return switch (i % 4) {
                case 0, 1 -> post(id, "ship", shipBody());
                case 2 -> post(id, "ship", Map.of("carrier", "DHL", "trackingNumber", "OTHER-" + i));
                default -> post(id, "cancel", Map.of("reason", "changed my mind"));
            };
        });
        for (int o = 0; o < orders.size(); o++) {
            String id = orders.get(o);
            long ships = Sql.historyCount(id, "SHIP");
            long cancels = Sql.historyCount(id, "CANCEL");
            assertEquals(1, ships + cancels, "one move per order, whatever shared its batch");
            List<Response> mine = answers.subList(o * 4, o * 4 + 4);
            long applied = mine.stream().filter(r -> r.statusCode() == 200 && r.header("Idempotent-Replayed") == null)
                    .count();
            assertEquals(1, applied, "exactly one request of the order was applied");
            mine.forEach(r -> assertTrue(r.statusCode() == 200 || r.statusCode() == 409, "200 or 409: " + r.asString()));
        }
        assertEquals(List.of(), Sql.violations(orders));
    }

    @Test
    void shouldRerunAFailedBatchOrderByOrderSoOnlyTheFailingRowFails() {
        // order 3 was shipped with its key once before it was paid: that first answer, a 409, is stored. Redis has
        // forgotten it, and the order is paid now, so its retry moves it in the batch statement — whose idempotency
        // record then collides with the stored one, failing the whole batch
        String early = createOrder();
        String earlyKey = newKey();
        postKeyed(early, "ship", shipBody(), earlyKey).then().statusCode(409);
        RedisCache.forgetAfterCached(redis, earlyKey);
        postKeyed(early, "pay", payBody(), newKey()).then().statusCode(200);
        Callbacks.deliver(Callbacks.success(early, AMOUNT, "EUR", "txn-" + UUID.randomUUID())).then().statusCode(200);
        List<String> paid = new ArrayList<>(IntStream.range(0, 7).mapToObj(i -> paidOrder()).toList());
        paid.add(3, early);
        List<String> keys = new ArrayList<>(paid.stream().map(id -> newKey()).toList());
        keys.set(3, earlyKey);
        double fallbacks = Meters.count(registry, "orderflow.transitions.batch.fallbacks");

        List<Response> answers = whileTheSlotIsHeld(true, 8, 8,
                i -> postKeyed(paid.get(i), "ship", shipBody(), keys.get(i)));

        assertEquals(fallbacks + 1, Meters.count(registry, "orderflow.transitions.batch.fallbacks"));
        for (int i = 0; i < 8; i++) {
            if (i == 3) {
                answers.get(i).then().statusCode(409).header("Idempotent-Replayed", "true")
                        .body("type", org.hamcrest.Matchers.is("https://orderflow.dev/problems/illegal-transition"));
                assertEquals(0, Sql.historyCount(paid.get(i), "SHIP"), "the first answer stands; nothing moved");
            } else {
                answers.get(i).then().statusCode(200).header("Idempotent-Replayed", (String) null);
                assertEquals(1, Sql.historyCount(paid.get(i), "SHIP"));
            }
        }
        assertEquals(List.of(), Sql.violations(paid));
    }

    @Test
    void shouldCarryEveryCharacterOfARowsValuesIntoTheBatchUnchanged() {
        List<String> trackingNumbers = List.of("TN \"quoted\"", "TN\\back\\slash", "TN,comma", "TN {braces}",
                "NULL", "TN ünïcödé 运单");
        List<String> paid = trackingNumbers.stream().map(t -> paidOrder()).toList();
        List<Response> answers = whileTheSlotIsHeld(false, paid.size(), paid.size(), i -> post(paid.get(i), "ship",
                Map.of("carrier", "DHL " + i, "trackingNumber", trackingNumbers.get(i))));
        for (int i = 0; i < paid.size(); i++) {
            answers.get(i).then().statusCode(200);
            assertEquals(trackingNumbers.get(i), answers.get(i).path("shipment.trackingNumber"));
            assertEquals(trackingNumbers.get(i),
                    Sql.string("select tracking_number from orders where id = ?::uuid", paid.get(i)));
            assertEquals("DHL " + i, Sql.string("select carrier from orders where id = ?::uuid", paid.get(i)));
        }
    }

    /**
     * Holds the batch slot of SHIP (keyed or keyless: their statements differ, and so do their batches) with a SHIP
     * blocked on a row lock, sends {@code n} requests, waits until {@code queued} of them wait for their batch,
     * releases the lock and returns the answers in order.
     */
    private List<Response> whileTheSlotIsHeld(boolean keyed, int queued, int n, IntFunction<Response> request) {
        String blocker = paidOrder();
        try (Connection lock = Sql.connect()) {
            lock.setAutoCommit(false);
            try (PreparedStatement select = lock.prepareStatement("select 1 from orders where id = ?::uuid for update")) {
                select.setString(1, blocker);
                select.executeQuery();
            }
            CompletableFuture<Response> held = CompletableFuture.supplyAsync(() -> keyed
                    ? postKeyed(blocker, "ship", shipBody(), newKey()) : post(blocker, "ship", shipBody()));
            Await.until(() -> Sql.count("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                    + " and datname = current_database()") == 1, "the blocker's statement to wait on the lock");
            CompletableFuture<List<Response>> answers = CompletableFuture.supplyAsync(() -> Parallel.run(n, request));
            Await.until(() -> Meters.gauge(registry, "orderflow.transitions.batch.waiting") == queued, queued + " transitions to queue behind the held slot");
            lock.rollback();
            held.join().then().statusCode(200);
            return answers.join();
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
