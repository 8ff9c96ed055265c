package io.orderflow.order;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.GroupedWrites;
import io.orderflow.support.Auth;
import io.orderflow.support.Await;
import io.orderflow.support.Callbacks;
import io.orderflow.support.CapturedLog;
import io.orderflow.support.Meters;
import io.orderflow.support.FeedEvents;
import io.orderflow.support.Parallel;
import io.orderflow.support.RedisCache;
import io.orderflow.support.RowLocks;
import io.orderflow.support.Sql;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.IntStream;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/**
 * Group commit over real HTTP and a real PostgreSQL, with the production settings (two statements in flight, 64
 * rows). To make a batch form deterministically, each test holds both statement slots with SHIPs that wait on row
 * locks the test holds, queues its requests behind them, and then releases the locks: what is queued leaves in
 * batches. The batches are observed as they leave (their size and orders, from GroupedWrites' debug line).
 */
@QuarkusTest
class GroupCommitTest {

    private static final String LOCK_WAITERS = "select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
            + " and datname = current_database()";

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

        List<List<String>> batches = new ArrayList<>();
        List<Response> answers = batches(batches, () -> whileTheSlotsAreHeld(true, 15, 15, i -> i < 12
                ? postKeyed(paid.get(i), "ship", shipBody(), keys.get(i))
                : postKeyed(List.of(unpaid, shipped, missing).get(i - 12), "ship", shipBody(), newKey())));

        assertEquals(batchesBefore + 3, Meters.recorded(registry, "orderflow.transitions.batch.rows"), "the two held SHIPs alone, then the 15 queued behind them together");
        assertEquals(rowsBefore + 17, Meters.recordedTotal(registry, "orderflow.transitions.batch.rows"), "one statement for all 15");
        List<String> all15 = new ArrayList<>(paid);
        all15.addAll(List.of(unpaid, shipped, missing));
        assertEquals(List.of(Set.copyOf(all15)), batches.stream().map(Set::copyOf).toList(), "one batch of the 15");

        for (int i = 0; i < 12; i++) {
            answers.get(i).then().statusCode(200).header("Idempotent-Replayed", (String) null);
            assertEquals("SHIPPED", answers.get(i).path("status"));
            assertEquals(1, Sql.historyCount(paid.get(i), "SHIP"));
            Response replay = postKeyed(paid.get(i), "ship", shipBody(), keys.get(i));
            replay.then().statusCode(200).header("Idempotent-Replayed", "true");
            assertEquals(answers.get(i).asString(), replay.asString(), "the batch stored each row's own answer");
            List<String> events = FeedEvents.of(paid.get(i));
            assertEquals(4, events.size(), "created, pay, payment_succeeded and the batch's ship");
            assertEquals(FeedEvents.tree(get("/orders/" + paid.get(i)).asString()),
                    FeedEvents.tree(events.get(3)).get("data").get("order"), "the batch wrote each row's own event");
        }
        answers.get(12).then().statusCode(409).contentType("application/problem+json")
                .body("type", Matchers.is("https://orderflow.dev/problems/illegal-transition"));
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
        List<List<String>> batches = new ArrayList<>();
        List<Response> answers = batches(batches, () -> whileTheSlotsAreHeld(false, 18, 24, i -> {
            String id = orders.get(i / 4);
            return switch (i % 4) {
                case 0, 1 -> post(id, "ship", shipBody());
                case 2 -> post(id, "ship", Map.of("carrier", "DHL", "trackingNumber", "OTHER-" + i));
                default -> post(id, "cancel", Map.of("reason", "changed my mind"));
            };
        }));
        // the 18 queued SHIPs, three per order, leave as three batches of one SHIP per order: two at once (both
        // slots), then the third
        assertEquals(List.of(6, 6, 6), batches.stream().map(List::size).toList(), "batches: " + batches);
        for (List<String> batch : batches) {
            assertEquals(Set.copyOf(orders), Set.copyOf(batch), "every order once in each batch: " + batch);
        }
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

        double rowFailures = failures("row");

        List<Response> answers = whileTheSlotsAreHeld(true, 8, 8,
                i -> postKeyed(paid.get(i), "ship", shipBody(), keys.get(i)));

        assertEquals(fallbacks + 1, Meters.count(registry, "orderflow.transitions.batch.fallbacks"));
        assertEquals(rowFailures + 1, failures("row"), "a unique violation is one row's failure");
        for (int i = 0; i < 8; i++) {
            if (i == 3) {
                answers.get(i).then().statusCode(409).header("Idempotent-Replayed", "true")
                        .body("type", Matchers.is("https://orderflow.dev/problems/illegal-transition"));
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
        List<Response> answers = whileTheSlotsAreHeld(false, paid.size(), paid.size(), i -> post(paid.get(i), "ship",
                Map.of("carrier", "DHL " + i, "trackingNumber", trackingNumbers.get(i))));
        for (int i = 0; i < paid.size(); i++) {
            answers.get(i).then().statusCode(200);
            assertEquals(trackingNumbers.get(i), answers.get(i).path("shipment.trackingNumber"));
            assertEquals(trackingNumbers.get(i),
                    Sql.string("select tracking_number from orders where id = ?::uuid", paid.get(i)));
            assertEquals("DHL " + i, Sql.string("select carrier from orders where id = ?::uuid", paid.get(i)));
        }
    }

    @Test
    void shouldRecordEachRowsOwnActorInABatch() {
        List<String> paid = IntStream.range(0, 5).mapToObj(i -> paidOrder()).toList();
        List<List<String>> batches = new ArrayList<>();
        List<Response> answers = batches(batches, () -> whileTheSlotsAreHeld(false, paid.size(), paid.size(),
                i -> Auth.operator("ops-batch-" + i).contentType(ContentType.JSON).body(shipBody())
                        .post("/orders/" + paid.get(i) + "/ship")));
        assertEquals(List.of(Set.copyOf(paid)), batches.stream().map(Set::copyOf).toList(), "one batch of the five");
        for (int i = 0; i < paid.size(); i++) {
            answers.get(i).then().statusCode(200);
            assertEquals("ops-batch-" + i, Sql.string("select actor from order_transitions where order_id ="
                    + " ?::uuid and event = 'SHIP'", paid.get(i)));
        }
    }

    @Test
    void shouldNotDeadlockWhenTwoBatchesInFlightShareOrdersThatArrivedInOppositeOrders() {
        // by id: first < middle < last, the order in which every batch locks them
        List<String> ids = IntStream.range(0, 3).mapToObj(i -> paidOrder()).sorted(Comparator.comparing(UUID::fromString))
                .toList();
        String first = ids.get(0);
        String middle = ids.get(1);
        String last = ids.get(2);
        double fallbacks = Meters.count(registry, "orderflow.transitions.batch.fallbacks");
        double failed = failures("row") + failures("shed") + failures("timeout") + failures("connection")
                + failures("other");
        List<List<String>> batches = new ArrayList<>();
        List<Response> answers;
        try (RowLocks middleLock = RowLocks.on(middle)) {
            // queued in this order, the first batch takes first, middle, last and the second last, first: in
            // arrival order the two would lock first and last in opposite orders
            answers = batches(batches, () -> {
                Slots slots = holdBothSlots(false);
                List<CompletableFuture<Response>> sent = new ArrayList<>();
                List<String> arrivals = List.of(first, middle, last, last, first);
                for (String id : arrivals) {
                    sent.add(CompletableFuture.supplyAsync(() -> post(id, "ship", shipBody())));
                    int queued = sent.size();
                    Await.until(() -> Meters.gauge(registry, "orderflow.transitions.batch.waiting") == queued,
                            queued + " transitions queued in arrival order");
                }
                slots.release();
                // the first batch locked its orders up to middle (held here); the second waits on one of them
                // both batches wait on a row lock, unless the second reached PostgreSQL first: then it took first
                // and last before the first batch and is done, and the first waits alone (no opposite order to test)
                CompletableFuture<?> second = CompletableFuture.allOf(sent.get(3), sent.get(4));
                Await.until(() -> Sql.count(LOCK_WAITERS) == (second.isDone() ? 1 : 2),
                        "both batches to wait on a row lock");
                middleLock.release();
                return sent.stream().map(CompletableFuture::join).toList();
            });
        }
        // two lanes log their batches as they leave, in either order
        assertEquals(Set.of(List.of(first, middle, last), List.of(last, first)), Set.copyOf(batches),
                "the batches as they left");
        assertEquals(2, batches.size());
        answers.forEach(answer -> answer.then().statusCode(200));
        assertEquals(fallbacks, Meters.count(registry, "orderflow.transitions.batch.fallbacks"),
                "no batch failed (a deadlock, 40P01, would have failed one)");
        assertEquals(failed, failures("row") + failures("shed") + failures("timeout") + failures("connection")
                + failures("other"));
        ids.forEach(id -> assertEquals(1, Sql.historyCount(id, "SHIP")));
        assertEquals(List.of(), Sql.violations(ids));
    }

    @Test
    void shouldAnswerEveryRowOfATimedOutBatchWith503InsteadOfRerunningEachRowAlone() {
        List<String> paid = IntStream.range(0, 5).mapToObj(i -> paidOrder()).toList();
        String stuck = paid.get(2);
        double timeouts = failures("timeout");
        double fallbacks = Meters.count(registry, "orderflow.transitions.batch.fallbacks");
        List<Response> answers;
        try (RowLocks stuckLock = RowLocks.on(stuck)) {
            Slots slots = holdBothSlots(false);
            double statements = Meters.count(registry, "orderflow.db.statements");
            // the batch of five waits on the stuck order's lock past the statement timeout
            CompletableFuture<List<Response>> sent = CompletableFuture
                    .supplyAsync(() -> Parallel.run(paid.size(), i -> post(paid.get(i), "ship", shipBody())));
            Await.until(() -> Meters.gauge(registry, "orderflow.transitions.batch.waiting") == paid.size(),
                    "the five to queue behind the held slots");
            slots.release();
            answers = sent.join();
            // the batch is one statement; a re-run row by row would add five more. The counter is the whole
            // service's, and a background job (outbox purge, refund worker) may add one of its own meanwhile
            double added = Meters.count(registry, "orderflow.db.statements") - statements;
            assertTrue(added >= 1 && added < paid.size(),
                    "the batch, not followed by one statement per row: " + added + " statements");
            stuckLock.release();
        }
        for (Response answer : answers) {
            answer.then().statusCode(503).header("Retry-After", "1").contentType("application/problem+json")
                    .body("type", Matchers.is("https://orderflow.dev/problems/service-unavailable"));
        }
        assertEquals(timeouts + 1, failures("timeout"));
        assertEquals(fallbacks, Meters.count(registry, "orderflow.transitions.batch.fallbacks"));
        // PostgreSQL ended the timed-out statement, which moved nothing: a retry of each SHIP applies it
        for (String id : paid) {
            post(id, "ship", shipBody()).then().statusCode(200);
            assertEquals(1, Sql.historyCount(id, "SHIP"));
        }
        assertEquals(List.of(), Sql.violations(paid));
    }

    private double failures(String kind) {
        return Meters.count(registry, "orderflow.transitions.batch.failures", "kind", kind);
    }

    /** Both statement slots of SHIP, each held by a SHIP that waits on a row lock. */
    private record Slots(RowLocks locks, List<CompletableFuture<Response>> held) {
        void release() {
            try (locks) {
                locks.release();
            }
            held.forEach(answer -> answer.join().then().statusCode(200));
        }
    }

    /**
     * Holds both batch slots of SHIP (keyed or keyless: their statements differ, and so do their batches). If the
     * blockers never wait, the locks go at once: held on, they would keep the blockers' statements at PostgreSQL, on
     * the service's connections, for the rest of the run.
     */
    private Slots holdBothSlots(boolean keyed) {
        List<String> blockers = List.of(paidOrder(), paidOrder());
        RowLocks locks = RowLocks.on(blockers);
        List<CompletableFuture<Response>> held = new ArrayList<>();
        try {
            // one after the other: sent together, both may ride one batch, which holds one slot (CI saw that)
            for (String blocker : blockers) {
                held.add(CompletableFuture.supplyAsync(() -> keyed
                        ? postKeyed(blocker, "ship", shipBody(), newKey()) : post(blocker, "ship", shipBody())));
                locks.awaitWaiters(held.size(), "the blockers' statements to wait on their locks");
            }
        } catch (AssertionError e) {
            locks.close();
            throw new AssertionError(e.getMessage() + "; the blockers answered " + held.stream()
                    .map(answer -> answer.isDone() ? answer.join().statusLine() + " " + answer.join().asString()
                            : "nothing yet").toList(), e);
        }
        return new Slots(locks, held);
    }

    /**
     * Holds both batch slots of SHIP, sends {@code n} requests, waits until {@code queued} of them wait for their
     * batch, releases the slots and returns the answers in order.
     */
    private List<Response> whileTheSlotsAreHeld(boolean keyed, int queued, int n, IntFunction<Response> request) {
        Slots slots = holdBothSlots(keyed);
        CompletableFuture<List<Response>> answers = CompletableFuture.supplyAsync(() -> Parallel.run(n, request));
        Await.until(() -> Meters.gauge(registry, "orderflow.transitions.batch.waiting") == queued, queued + " transitions to queue behind the held slots");
        slots.release();
        return answers.join();
    }

    /**
     * Runs {@code work} and adds to {@code batches} the orders of each batch of transitions that left meanwhile, in
     * the order the batch sent them: GroupedWrites logs each batch at DEBUG, turned on here for the while.
     */
    private static <T> T batches(List<List<String>> batches, Supplier<T> work) {
        Logger lanes = Logger.getLogger(GroupedWrites.class.getName());
        Level was = lanes.getLevel();
        lanes.setLevel(Level.FINE);
        try (CapturedLog log = CapturedLog.start()) {
            T result = work.get();
            String prefix = "[" + GroupedWrites.class.getName() + "] A batch of ";
            for (String line : log.atLeast(Level.FINE)) {
                int at = line.indexOf(prefix);
                if (at >= 0 && line.contains(" transitions left: [")) {
                    String members = line.substring(line.indexOf(" left: [") + 8, line.lastIndexOf(']'));
                    batches.add(List.of(members.split(", ")));
                }
            }
            return result;
        } finally {
            lanes.setLevel(was);
        }
    }
}
