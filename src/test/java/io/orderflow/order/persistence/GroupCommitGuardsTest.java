package io.orderflow.order.persistence;

import static io.orderflow.support.OrderMother.AMOUNT;
import static io.orderflow.support.OrderMother.createOrder;
import static io.orderflow.support.OrderMother.newKey;
import static io.orderflow.support.OrderMother.payBody;
import static io.orderflow.support.OrderMother.postKeyed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.SameStatementWrite;
import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.Transition;
import io.orderflow.support.Await;
import io.orderflow.support.Meters;
import io.orderflow.support.RowLocks;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A guarded move (a provider report: the order's payment attempt and amount must match) in a group-commit batch:
 * the batch statement holds each row to the guards the single statement holds one order to. The moves go through
 * the repository, with only writes that have a batch form (the order's event), since in the service a report also
 * carries payment writes, which keep it out of a batch. As in GroupCommitTest, a batch forms deterministically: both
 * statement slots of the shape are held by moves waiting on row locks the test holds, the moves under test queue
 * behind them, and the locks are released.
 */
@QuarkusTest
class GroupCommitGuardsTest {

    private static final String PENDING = "PAYMENT_PENDING";

    @Inject
    OrderRepository orders;

    @Inject
    MeterRegistry registry;

    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    @Test
    void shouldRefuseAGuardedRowOfABatchThatMissesItsGuardAndMoveTheOthers() {
        List<String> matching = List.of(pendingOrder(), pendingOrder());
        String otherAttempt = pendingOrder();
        String otherAmount = pendingOrder();
        long batches = Meters.recorded(registry, "orderflow.transitions.batch.rows");
        double rows = Meters.recordedTotal(registry, "orderflow.transitions.batch.rows");

        List<String> blockers = List.of(pendingOrder(), pendingOrder());
        List<CompletableFuture<OrderRepository.Outcome>> held = new ArrayList<>();
        List<CompletableFuture<OrderRepository.Outcome>> queued;
        try (RowLocks lock = RowLocks.on(blockers)) {
            // one after the other: sent together, both may ride one batch, which holds one slot
            for (String id : blockers) {
                held.add(paymentFailed(id, attemptOf(id), AMOUNT));
                lock.awaitWaiters(held.size(), "the blockers' statements to wait on their locks");
            }
            queued = List.of(paymentFailed(matching.get(0), attemptOf(matching.get(0)), AMOUNT),
                    paymentFailed(otherAttempt, UUID.randomUUID(), AMOUNT),
                    paymentFailed(otherAmount, attemptOf(otherAmount), AMOUNT + 1),
                    paymentFailed(matching.get(1), attemptOf(matching.get(1)), AMOUNT));
            Await.until(() -> Meters.gauge(registry, "orderflow.transitions.batch.waiting") == 4,
                    "the four moves to queue behind the held slots");
            lock.release();
        }
        held.forEach(blocker -> assertTrue(blocker.join().moved(), "a blocker moved alone"));
        List<OrderRepository.Outcome> outcomes = queued.stream().map(CompletableFuture::join).toList();

        assertEquals(batches + 3, Meters.recorded(registry, "orderflow.transitions.batch.rows"),
                "the two blockers alone, then the four queued behind them together");
        assertEquals(rows + 6, Meters.recordedTotal(registry, "orderflow.transitions.batch.rows"),
                "one statement for the four");
        assertTrue(outcomes.get(0).moved(), "a row whose attempt and amount match moves");
        assertTrue(outcomes.get(3).moved(), "a row whose attempt and amount match moves");
        assertFalse(outcomes.get(1).moved(), "a row naming another attempt than the order's moved");
        assertFalse(outcomes.get(2).moved(), "a row with another amount than the order's moved");
        for (String id : List.of(otherAttempt, otherAmount)) {
            assertEquals(PENDING, Sql.string("select status from orders where id = ?::uuid", id));
            assertEquals(0, Sql.historyCount(id, "PAYMENT_FAILED"));
        }
        assertEquals(List.of(OrderEvent.PAY), outcomes.get(1).history().stream().map(Transition::event).toList(),
                "a refused row comes back with its history, for the zero-row verdict");
        for (String id : matching) {
            assertEquals("CREATED", Sql.string("select status from orders where id = ?::uuid", id));
            assertEquals(1, Sql.historyCount(id, "PAYMENT_FAILED"));
        }
    }

    /** A new order that PAY moved to PAYMENT_PENDING, standing on the attempt PAY started. */
    private static String pendingOrder() {
        String id = createOrder();
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        return id;
    }

    private static UUID attemptOf(String orderId) {
        return UUID.fromString(Sql.string("select cast(payment_attempt_id as text) from orders where id = ?::uuid",
                orderId));
    }

    /** A provider's report that {@code attemptId} failed, for {@code amount} EUR, sent as the service sends it. */
    private CompletableFuture<OrderRepository.Outcome> paymentFailed(String orderId, UUID attemptId, long amount) {
        OrderMove move = new OrderMove(UUID.fromString(orderId), OrderEvent.PAYMENT_FAILED,
                new EventDetails.ProviderReport("mockpay", null, amount, "EUR", attemptId), null, null, "mockpay",
                "mockpay", "evt_" + UUID.randomUUID(), null);
        List<SameStatementWrite> writes = List.of();
        return CompletableFuture.supplyAsync(() -> {
            try {
                return VertxContextSupport.subscribeAndAwait(() -> orders.transition(move, Instant.now(), writes,
                        Map.of()));
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }, callers);
    }
}
