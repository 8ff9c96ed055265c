package io.orderflow.payment;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.Callbacks;
import io.orderflow.support.Contract;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /payments/anomalies/{id}/resolve}: an operator records what they did about an anomaly, once, and it
 * leaves the on-call queue ({@code GET /payments/anomalies?resolved=false}); hostile input is a problem, never a 500.
 */
@QuarkusTest
class AnomalyResolutionTest {

    private static final String TYPES = "https://orderflow.dev/problems/";
    private static final String PROBLEM = "application/problem+json";

    /** A new amount-mismatch anomaly (mockpay reports one cent too much); its id. */
    private static long newAnomaly() {
        String id = createOrder();
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        Callbacks.deliver(Callbacks.success(id, AMOUNT + 1, "EUR", "txn-" + UUID.randomUUID())).then()
                .statusCode(200).body("outcome", is("amount-mismatch"));
        return Sql.count("select id from payment_anomalies where order_id = ?", UUID.fromString(id));
    }

    private static Response resolve(String operator, Object anomalyId, Object body) {
        return Auth.operator(operator).contentType(ContentType.JSON).body(body)
                .post("/payments/anomalies/" + anomalyId + "/resolve");
    }

    /** The ids of the anomalies {@code query} lists, walking every page. */
    private static List<Long> listed(String query) {
        List<Long> ids = new ArrayList<>();
        String after = "0";
        while (after != null) {
            Response page = Auth.operator().get("/payments/anomalies?limit=100&after=" + after + query).then()
                    .statusCode(200).extract().response();
            page.<List<Number>>path("items.id").forEach(id -> ids.add(id.longValue()));
            after = page.path("next");
        }
        return ids;
    }

    @Test
    void shouldTakeAResolvedAnomalyOutOfTheQueueAndShowWhoResolvedItAndTheirNote() {
        long anomaly = newAnomaly();
        long other = newAnomaly();
        assertTrue(listed("&resolved=false").containsAll(List.of(anomaly, other)), "both wait in the queue");

        resolve("ops-carol", anomaly, Map.of("note", "refunded the extra cent by hand")).then().statusCode(200)
                .body("id", is((int) anomaly), "kind", is("amount-mismatch"), "resolution.by", is("ops-carol"),
                        "resolution.note", is("refunded the extra cent by hand"));

        List<Long> queue = listed("&resolved=false");
        assertFalse(queue.contains(anomaly), "a resolved anomaly leaves the queue");
        assertTrue(queue.contains(other), "the other still waits");
        assertTrue(listed("&resolved=true").contains(anomaly));
        assertFalse(listed("&resolved=true").contains(other));
        assertTrue(listed("").containsAll(List.of(anomaly, other)), "without the filter, all");
        Auth.operator().get("/payments/anomalies?limit=100&after=" + (anomaly - 1)).then()
                .body("items[0].resolution.by", is("ops-carol"), "items[0].resolution.note",
                        is("refunded the extra cent by hand"))
                .body("items.find { it.id == " + other + " }.resolution", nullValue());
        assertEquals("ops-carol", Sql.string("select resolved_by from payment_anomalies where id = ?", anomaly));
    }

    @Test
    void shouldAnswerEveryRepeatWithTheFirstResolutionUnchanged() {
        long anomaly = newAnomaly();
        Response first = resolve("ops-dave", anomaly, Map.of("note", "settled with the shop"));
        first.then().statusCode(200);
        Response again = resolve("ops-erin", anomaly, Map.of("note", "something else"));
        again.then().statusCode(200).body("resolution.by", is("ops-dave"), "resolution.note",
                is("settled with the shop"));
        assertEquals(first.asString(), again.asString(), "the same answer");

        long raced = newAnomaly();
        List<Response> answers = Parallel.run(6, i -> resolve("ops-" + i, raced, Map.of("note", "note " + i)));
        answers.forEach(answer -> answer.then().statusCode(200));
        assertEquals(1, answers.stream().map(Response::asString).distinct().count(), "one resolution stands");
        String by = answers.get(0).path("resolution.by");
        assertEquals("note " + by.substring(4), answers.get(0).path("resolution.note"));
    }

    @Test
    void shouldAnswerAnUnknownAnomalyWith404AndHostileInputWithA400Or413Problem() {
        resolve("ops-1", Long.MAX_VALUE, Map.of("note", "x")).then().statusCode(404).contentType(PROBLEM)
                .body("type", is(TYPES + "not-found"));
        long anomaly = newAnomaly();
        for (String body : List.of("{}", "{\"note\":\"\"}", "{\"note\":\"   \"}", "{\"note\":5}", "{\"note\":null}",
                "{\"note\":\"x\",\"extra\":1}", "{\"note\":\"" + "n".repeat(2001) + "\"}", "[]", "null",
                "{\"note\":\"bell\\u0007\"}", "{\"note\":")) {
            Auth.operator().filter(Contract.invalidRequest()).contentType(ContentType.JSON).body(body)
                    .post("/payments/anomalies/" + anomaly + "/resolve").then().statusCode(400)
                    .contentType(PROBLEM).body("status", is(400));
        }
        Auth.operator().filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                .post("/payments/anomalies/" + anomaly + "/resolve").then().statusCode(400).contentType(PROBLEM);
        for (String id : List.of("abc", "-1", "1.5", "99999999999999999999", UUID.randomUUID().toString(), "%00")) {
            Auth.operator().filter(Contract.invalidRequest()).urlEncodingEnabled(false).contentType(ContentType.JSON)
                    .body(Map.of("note", "x")).post("/payments/anomalies/" + id + "/resolve").then().statusCode(400)
                    .contentType(PROBLEM).body("type", is(TYPES + "invalid-request"));
        }
        Auth.operator().filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                .body("{\"note\":\"" + "n".repeat(10 * 1024 * 1024) + "\"}")
                .post("/payments/anomalies/" + anomaly + "/resolve").then().statusCode(413).contentType(PROBLEM);
        Auth.customer(newCustomer()).contentType(ContentType.JSON).body(Map.of("note", "mine"))
                .post("/payments/anomalies/" + anomaly + "/resolve").then().statusCode(403).contentType(PROBLEM);
        Auth.operator().filter(Contract.invalidRequest()).get("/payments/anomalies?resolved=maybe").then()
                .statusCode(400).contentType(PROBLEM).body("type", is(TYPES + "invalid-request"));
        assertEquals(0, Sql.count("select count(*) from payment_anomalies where id = ? and resolved_at is not null",
                anomaly), "nothing was resolved");
    }
}
