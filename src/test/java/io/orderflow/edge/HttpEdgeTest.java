package io.orderflow.edge;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.support.Auth;
import io.orderflow.support.Contract;
import io.restassured.http.ContentType;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.common.http.TestHTTPResource;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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

    @TestHTTPResource("/orders")
    URI orders;

    /** POSTs {@code body} chunked: the client cannot know its length, so it sends no Content-Length. */
    private HttpResponse<String> postChunked(String customer, String body) throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        HttpRequest request = HttpRequest.newBuilder(orders).version(HttpClient.Version.HTTP_1_1)
                .header("Authorization", "Bearer " + io.orderflow.support.Auth.token("customer", customer))
                .header("Content-Type", "application/json").header("Idempotency-Key", newKey())
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldAnswerAChunkedBodyOverTheDocumentedSizeWithA413ProblemAndWriteNothing() throws Exception {
        String customer = newCustomer();
        JsonObject body = new JsonObject(new java.util.HashMap<>(orderBody(customer))).put("padding", "x".repeat(100 * 1024));
        HttpResponse<String> answer = postChunked(customer, body.encode());
        assertEquals(413, answer.statusCode(), answer.body());
        assertEquals("application/problem+json", answer.headers().firstValue("Content-Type").orElse(null));
        assertEquals(TYPES + "payload-too-large", new JsonObject(answer.body()).getString("type"));
        assertEquals(0, io.orderflow.support.Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    @Test
    void shouldReadAChunkedBodyWithinTheLimitAsAnyOther() throws Exception {
        String customer = newCustomer();
        HttpResponse<String> answer = postChunked(customer, new JsonObject(orderBody(customer)).encode());
        assertEquals(201, answer.statusCode(), answer.body());
        assertEquals(customer, new JsonObject(answer.body()).getString("customerId"));
    }
}
