package io.orderflow.order;

import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Real parallel HTTP requests racing for the same order; the rows are counted afterwards. */
@QuarkusTest
class ConcurrentTransitionsTest {

    private static final int REQUESTS = 64;

    @Test
    void shouldApplyOneOf64ConcurrentIdenticalShipsAndAnswerAllWith200() {
        String id = paidOrder();
        List<Integer> statuses = Parallel.run(REQUESTS, i -> post(id, "ship", shipBody()).statusCode());
        assertTrue(statuses.stream().allMatch(s -> s == 200), "every identical SHIP succeeds: " + statuses);
        assertEquals(1, Sql.historyCount(id, "SHIP"));
        assertEquals(3, Sql.count("select version from orders where id = ?", UUID.fromString(id)),
                "PAY, PAYMENT_SUCCEEDED and exactly one SHIP");
    }

    @Test
    void shouldLetExactlyOneKindWinWhenShipAndCancelRace() {
        String id = paidOrder();
        List<Result> results = Parallel.run(REQUESTS, i -> {
            String action = i % 2 == 0 ? "ship" : "cancel";
            Object body = i % 2 == 0 ? shipBody() : Map.of("reason", "race");
            return new Result(action, post(id, action, body).statusCode());
        });
        long ships = Sql.historyCount(id, "SHIP");
        long cancels = Sql.historyCount(id, "CANCEL");
        assertEquals(1, ships + cancels, "exactly one of SHIP and CANCEL is in the history");
        String winner = ships == 1 ? "ship" : "cancel";
        for (Result r : results) {
            assertEquals(r.action().equals(winner) ? 200 : 409, r.status(), r.action() + " after " + winner + " won");
        }
        String status = Auth.operator().get("/orders/" + id).path("status");
        assertEquals(winner.equals("ship") ? "SHIPPED" : "REFUND_PENDING", status);
    }

    @Test
    void shouldCreateOneOrderFrom50ConcurrentCreatesWithOneKey() {
        String key = newKey();
        String customer = "c-" + UUID.randomUUID();
        List<Response> responses = Parallel.run(50,
                i -> createAs(customer, key, orderBody(customer)));
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", customer));
        String id = Sql.string("select id::text from orders where customer_id = ?", customer);
        for (var r : responses) {
            assertTrue(r.statusCode() == 201 || r.statusCode() == 409, "201 or 409 in flight, got " + r.statusCode());
            if (r.statusCode() == 201) {
                assertEquals(id, r.path("id"));
            } else {
                assertEquals("https://orderflow.dev/problems/request-in-flight", r.path("type"));
                assertTrue(r.header("Retry-After") != null);
            }
        }
        var replay = createAs(customer, key, orderBody(customer));
        assertEquals(201, replay.statusCode());
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals("/orders/" + id, replay.header("Location"));
        assertEquals(id, replay.path("id"));
    }

    record Result(String action, int status) {
    }
}
