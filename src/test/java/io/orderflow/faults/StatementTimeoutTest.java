package io.orderflow.faults;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.support.RowLocks;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A statement stuck on a lock that a stray session holds (an operator's open transaction, say) is ended by
 * PostgreSQL at the statement timeout: its request is answered 503, and the pooled connection it ran on is clean
 * again for the requests that draw it next. Given up on by the client alone, the statement would run on, and every
 * request sent on its connection would wait behind it and fail too, for as long as the lock is held.
 */
@QuarkusTest
class StatementTimeoutTest {

    @Test
    void shouldEndAStatementStuckOnALockAndServeTheNextRequestsOnItsConnection() {
        String stuck = paidOrder();
        try (RowLocks lock = RowLocks.on(stuck)) {
            post(stuck, "ship", shipBody()).then().statusCode(503).header("Retry-After", "1")
                    .contentType("application/problem+json")
                    .body("type", is("https://orderflow.dev/problems/service-unavailable"));
            assertEquals(0, lock.waiters(), "PostgreSQL ended the stuck statement");

            // more requests than the pool has connections, one after another: each draws a connection, the
            // stuck statement's among them
            List<String> shipped = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                String id = paidOrder();
                post(id, "ship", shipBody()).then().statusCode(200);
                shipped.add(id);
            }
            assertEquals(0, lock.waiters());
            lock.release();
            shipped.forEach(id -> assertEquals(1, Sql.historyCount(id, "SHIP")));
        }
        post(stuck, "ship", shipBody()).then().statusCode(200);
        assertEquals(1, Sql.historyCount(stuck, "SHIP"));
        assertEquals(List.of(), Sql.violations(List.of(stuck)));
    }
}
