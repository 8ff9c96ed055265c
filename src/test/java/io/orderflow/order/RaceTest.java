package io.orderflow.order;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Callbacks;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/** Hundreds of orders, each raced by two paths at once: exactly one path wins per order, and nothing answers 5xx. */
@QuarkusTest
class RaceTest {

    private static final int ORDERS = Integer.getInteger("race.orders", 250);
    /** Concurrent clients; each pair of racing requests for one order is sent side by side. */
    private static final int CLIENTS = 64;

    /** A well-behaved client: one key per request, retried on 503 as Retry-After asks. */
    private static int keyed(String id, String action, Object body) {
        String key = newKey();
        return untilFinal(() -> postKeyed(id, action, body, key).statusCode());
    }

    private static int untilFinal(IntSupplier send) {
        int status = send.getAsInt();
        for (int attempt = 0; attempt < 10 && status == 503; attempt++) {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            status = send.getAsInt();
        }
        return status;
    }

    @Test
    void shouldLetExactlyOnePathWinPerOrderWhenShipAndCancelRaceOn250Orders() {
        List<String> orders = paidOrders(ORDERS);
        List<Integer> statuses = Parallel.run(ORDERS * 2, CLIENTS, i -> {
            String id = orders.get(i / 2);
            return i % 2 == 0 ? keyed(id, "ship", shipBody()) : keyed(id, "cancel", Map.of("reason", "race"));
        });
        assertTrue(statuses.stream().allMatch(s -> s == 200 || s == 409), "only 200 or 409: " + statuses);
        for (String id : orders) {
            assertEquals(1, Sql.historyCount(id, "SHIP") + Sql.historyCount(id, "CANCEL"), id);
        }
        assertEquals(List.of(), Sql.violations(orders));
    }

    @Test
    void shouldLetExactlyOnePathWinPerOrderWhenTheProvidersSuccessRacesACancelOn250Orders() {
        List<String> orders = pendingOrders(ORDERS);
        List<Integer> statuses = Parallel.run(ORDERS * 2, CLIENTS, i -> {
            String id = orders.get(i / 2);
            return i % 2 == 0 ? untilFinal(() -> Callbacks.deliver(Callbacks.success(id, AMOUNT, "EUR", "txn-" + id))
                    .statusCode()) : keyed(id, "cancel", Map.of("reason", "race"));
        });
        assertTrue(statuses.stream().allMatch(s -> s == 200 || s == 409), "only 200 or 409: " + statuses);
        for (String id : orders) {
            String status = Sql.string("select status from orders where id = ?", UUID.fromString(id));
            // success first: PAID then CANCEL → REFUND_PENDING; cancel first: CANCELLED then success → REFUND_PENDING
            assertEquals("REFUND_PENDING", status, "either way the captured money is owed back: " + id);
            assertEquals(1, Sql.historyCount(id, "PAYMENT_SUCCEEDED"));
            assertEquals(1, Sql.historyCount(id, "CANCEL"));
        }
        assertEquals(List.of(), Sql.violations(orders));
    }

    private static List<String> pendingOrders(int n) {
        return Parallel.run(n, CLIENTS, i -> {
            String id = createOrder();
            postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
            return id;
        });
    }

    private static List<String> paidOrders(int n) {
        List<String> pending = pendingOrders(n);
        Parallel.run(n, CLIENTS, i -> Callbacks.deliver(Callbacks.success(pending.get(i), AMOUNT, "EUR", "t-" + i))
                .then().statusCode(200));
        return pending;
    }
}
