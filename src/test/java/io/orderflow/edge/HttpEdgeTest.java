package io.orderflow.edge;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.support.Auth;
import io.orderflow.support.Contract;
import io.restassured.http.ContentType;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * Errors the HTTP layer used to answer itself (an empty 431 or 414, a 404 for a bad number) are problems with a
 * type from the contract; past the documented limits, and below Vert.x's own, the service answers.
 */
@QuarkusTest
class HttpEdgeTest {

    private static final String TYPES = "https://orderflow.dev/problems/";

    @Test
    void shouldAnswerHeadersOverTheDocumentedSizeWithA431Problem() {
        Auth.operator().filter(Contract.invalidRequest()).header("X-Padding", "x".repeat(24 * 1024)).get("/orders").then().statusCode(431)
                .contentType("application/problem+json").body("type", is(TYPES + "headers-too-large"));
    }

    @Test
    void shouldAnswerAPathOverTheDocumentedLengthWithA414Problem() {
        Auth.operator().filter(Contract.invalidRequest()).get("/orders/" + "a".repeat(5000)).then().statusCode(414)
                .contentType("application/problem+json").body("type", is(TYPES + "uri-too-long"));
    }

    @Test
    void shouldStillServeRequestsJustWithinTheLimits() {
        Auth.operator().filter(Contract.invalidRequest()).header("X-Padding", "x".repeat(8 * 1024)).get("/orders?limit=1").then().statusCode(200);
    }

    @Test
    void shouldAnswerAPageSizeThatIsNoNumberWithA400Problem() {
        for (String limit : new String[] { "abc", "1.5", "0", "101" }) {
            Auth.operator().filter(Contract.invalidRequest()).get("/orders?limit=" + limit).then().statusCode(400)
                    .contentType("application/problem+json").body("type", is(TYPES + "invalid-request"));
        }
    }

    @Test
    void shouldCallAnEmptyIdempotencyKeyInvalidNotMissing() {
        String customer = newCustomer();
        Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON).header("Idempotency-Key", "").body(orderBody(customer))
                .post("/orders").then().statusCode(400).contentType("application/problem+json")
                .body("type", is(TYPES + "idempotency-key-invalid"));
        Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON).body(orderBody(customer))
                .post("/orders").then().statusCode(400).body("type", is(TYPES + "idempotency-key-missing"));
        assertEquals(0, io.orderflow.support.Sql.count("select count(*) from orders where customer_id = ?", customer));
    }
}
