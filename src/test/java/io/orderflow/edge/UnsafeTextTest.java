package io.orderflow.edge;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.common.Db;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.support.Auth;
import io.orderflow.support.Callbacks;
import io.orderflow.support.Contract;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * NUL, other control characters and lone surrogates in a string field are refused at the edge with a 400 problem
 * that names the field, and nothing is written; a value PostgreSQL refuses anyway (SQLSTATE 22) is a 400, not a 500.
 * Bodies carry the characters as JSON escapes ({@code \u0000}, {@code \ud800}), as an attacker sends them.
 */
@QuarkusTest
class UnsafeTextTest {

    private static final String TYPES = "https://orderflow.dev/problems/";
    private static final String NUL = "\\u0000";
    private static final String LONE_SURROGATE = "\\ud800";

    @Inject
    Db db;

    @Inject
    ProblemMapper problems;

    private static String orderWithSku(String customer, String sku) {
        return "{\"customerId\":\"" + customer + "\",\"currency\":\"EUR\",\"items\":[{\"sku\":\"" + sku
                + "\",\"quantity\":1,\"unitPrice\":100}]}";
    }

    @Test
    void shouldRefuseNulControlCharactersAndLoneSurrogatesInAnOrderNamingTheField() {
        String customer = newCustomer();
        for (String bad : new String[] { "A" + NUL + "B", "A\\u0007B", "A\\u001bB", "A\\u007fB", "A\\u0085B",
            "A" + LONE_SURROGATE + "B", "A\\udc00B", "A" + LONE_SURROGATE }) {
            Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                    .body(orderWithSku(customer, bad)).post("/orders").then().statusCode(400)
                    .contentType("application/problem+json")
                    .body("type", is(TYPES + "invalid-request"), "field", is("items[].sku"));
        }
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    @Test
    void shouldAcceptTextBeyondTheBasicPlaneAndStoreWhatItAnswers() {
        String customer = newCustomer();
        String id = Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(orderWithSku(customer, "\\ud83d\\ude00-\u00e9")).post("/orders").then().statusCode(201)
                .body("items[0].sku", is("\ud83d\ude00-\u00e9")).extract().path("id");
        assertEquals("\ud83d\ude00-\u00e9", Sql.string("select items->0->>'sku' from orders where id = ?::uuid", id));
    }

    @Test
    void shouldRefuseARawSurrogateEncodedInTheBody() {
        String customer = newCustomer();
        String[] around = orderWithSku(customer, "A|B").split("\\|");
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(around[0].getBytes(StandardCharsets.UTF_8));
        // ED A0 80: a surrogate encoded as if it were a character (CESU-8), which is not UTF-8
        body.writeBytes(new byte[] { (byte) 0xED, (byte) 0xA0, (byte) 0x80 });
        body.writeBytes(around[1].getBytes(StandardCharsets.UTF_8));
        Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(body.toByteArray()).post("/orders").then().statusCode(400).contentType("application/problem+json");
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    @Test
    void shouldRefuseNulInEveryTransitionsTextField() {
        String created = createOrder();
        String paid = paidOrder();
        post(paid, "ship", "{\"carrier\":\"DHL" + NUL + "\",\"trackingNumber\":\"JD1\"}", "carrier");
        post(paid, "ship", "{\"carrier\":\"DHL\",\"trackingNumber\":\"JD" + LONE_SURROGATE + "\"}", "trackingNumber");
        post(paid, "cancel", "{\"reason\":\"no" + NUL + "\"}", "reason");
        post(created, "pay", "{\"provider\":\"mock" + NUL + "pay\"}", "provider");
        assertEquals(0, Sql.historyCount(paid, "SHIP") + Sql.historyCount(paid, "CANCEL")
                + Sql.historyCount(created, "PAY"));
    }

    private static void post(String orderId, String action, String body, String field) {
        callerFor(orderId, action).filter(Contract.invalidRequest()).contentType(ContentType.JSON).header("Idempotency-Key", newKey()).body(body)
                .post("/orders/" + orderId + "/" + action).then().statusCode(400)
                .contentType("application/problem+json")
                .body("type", is(TYPES + "invalid-request"), "field", is(field));
    }

    @Test
    void shouldAcknowledgeASignedProviderEventWithNulAndRecordItAsAnAnomalyOnce() {
        String pending = createOrder();
        postKeyed(pending, "pay", payBody(), newKey()).then().statusCode(200);
        String event = Callbacks.success(pending, AMOUNT, "EUR", "txn-" + UUID.randomUUID())
                .replace("\"providerTxnId\":\"txn-", "\"providerTxnId\":\"t" + NUL + "xn-");
        for (int delivery = 0; delivery < 2; delivery++) {
            Callbacks.deliverInvalid(event, Callbacks.signature(Callbacks.SECRET, Instant.now().getEpochSecond(), event)).then().statusCode(200).contentType(ContentType.JSON)
                    .body("outcome", is("invalid"));
        }
        assertEquals(0, Sql.historyCount(pending, "PAYMENT_SUCCEEDED"));
        // recorded once, under the event's own id (readable here), whatever the redeliveries' bytes
        String eventId = event.replaceAll(".*\"eventId\":\"([^\"]+)\".*", "$1");
        assertEquals(1, Sql.count("select count(*) from payment_anomalies where kind = 'invalid-event'"
                + " and detail like '%providerTxnId%' and provider = 'mockpay' and event_id = ?", eventId));
    }

    @Test
    void shouldStillRefuseAnUnsignedEventWithNulBeforeLookingAtIt() {
        String event = Callbacks.success(UUID.randomUUID().toString(), AMOUNT, "EUR", "t" + NUL);
        Callbacks.deliverInvalid(event, null).then().statusCode(400).contentType("application/problem+json")
                .body("type", is(TYPES + "signature-missing"));
    }

    @Test
    void shouldAnswerADataErrorOfPostgresqlWith400() throws Throwable {
        // on a safe duplicated context of its own, as a request's statements run
        Throwable refused = VertxContextSupport.subscribeAndAwait(() -> db.run(session -> session
                .createNativeQuery("select cast(:text as text)").setParameter("text", "A\u0000B").getSingleResult())
                .map(rows -> (Throwable) null).onFailure().recoverWithItem(failure -> failure)
                .ifNoItem().after(Duration.ofSeconds(30)).fail());
        var problem = problems.toProblem(refused);
        assertEquals(400, problem.status(), String.valueOf(refused));
        assertEquals(TYPES + "invalid-request", problem.type().toString());
    }
}
