package io.orderflow.edge;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.support.Auth;
import io.orderflow.support.CapturedLog;
import io.orderflow.support.Contract;
import io.orderflow.support.Sql;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import java.util.stream.Collectors;
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
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    @Test
    void shouldRefuseTwoIdempotencyKeyHeadersWithA400ProblemAndWriteNothing() {
        String customer = newCustomer();
        Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                .header("Idempotency-Key", newKey()).header("Idempotency-Key", newKey()).body(orderBody(customer))
                .post("/orders").then().statusCode(400).contentType("application/problem+json")
                .body("type", is(TYPES + "idempotency-key-invalid"));
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    @Test
    void shouldRefuseAJsonBodyInUtf16Or32WithA400ProblemAndWriteNothing() {
        String customer = newCustomer();
        String json = new JsonObject(orderBody(customer)).encode();
        byte[] utf16be = json.getBytes(StandardCharsets.UTF_16BE);
        byte[] utf16leMarked = ("\uFEFF" + json).getBytes(StandardCharsets.UTF_16LE);
        byte[] utf32 = json.getBytes(Charset.forName("UTF-32"));
        for (byte[] body : List.of(utf16be, utf16leMarked, utf32)) {
            Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                    .header("Idempotency-Key", newKey()).body(body).post("/orders").then().statusCode(400)
                    .contentType("application/problem+json").body("type", is(TYPES + "malformed-body"));
        }
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    @Test
    void shouldAnswerAMethodThePathDoesNotTakeWithA405Problem() {
        String order = createOrder();
        // methods the contract does not list for these paths: the requests are deliberately outside it
        for (String[] call : new String[][] { { "DELETE", "/orders/" + order }, { "PUT", "/orders/" + order },
            { "GET", "/orders/" + order + "/ship" }, { "POST", "/state-machine" }, { "DELETE", "/orders" } }) {
            Auth.operator().filter(Contract.invalidRequest()).request(call[0], call[1]).then().statusCode(405)
                    .contentType("application/problem+json").body("type", is(TYPES + "method-not-allowed"))
                    .body("status", is(405));
        }
        Auth.operator().filter(Contract.invalidRequest()).delete("/orders/" + order).then().header("Allow", "GET");
        Auth.operator().filter(Contract.invalidRequest()).delete("/orders").then().header("Allow", "GET, POST");
    }

    /**
     * Every path of openapi.yaml, asked with HEAD and OPTIONS (which no path lists and Quarkus REST would answer
     * itself with 200): a 405 problem whose {@code Allow} names exactly the methods the contract lists for the path.
     * The answers are held to the contract like every other (its 405, with {@code Allow}, documented).
     */
    @Test
    void shouldAnswerHeadAndOptionsOnEveryPathWithA405ProblemNamingTheDocumentedMethods() {
        String order = createOrder();
        OpenAPI contract = new OpenAPIV3Parser().read("openapi.yaml");
        assertEquals(false, contract.getPaths().isEmpty());
        contract.getPaths().forEach((template, item) -> {
            String path = template.replace("{id}", order).replace("{refundId}", UUID.randomUUID().toString())
                    .replace("{eventId}", UUID.randomUUID().toString());
            String allowed = item.readOperationsMap().keySet().stream().map(Enum::name).sorted()
                    .collect(Collectors.joining(", "));
            Auth.operator().filter(Contract.invalidRequest()).options(path).then().statusCode(405)
                    .header("Allow", allowed).contentType("application/problem+json")
                    .body("type", is(TYPES + "method-not-allowed"));
            Auth.operator().filter(Contract.invalidRequest()).head(path).then().statusCode(405)
                    .header("Allow", allowed);
        });
    }

    @Test
    void shouldAnswerAnAcceptHeaderNoJsonEndpointCanMeetWithA406Problem() {
        String customer = newCustomer();
        String order = createOrder(customer);
        Auth.customer(customer).filter(Contract.invalidRequest()).accept("text/plain").get("/orders/" + order).then()
                .statusCode(406).contentType("application/problem+json").body("type", is(TYPES + "not-acceptable"));
        Auth.customer(customer).filter(Contract.invalidRequest()).accept("image/png").contentType(ContentType.JSON)
                .header("Idempotency-Key", newKey()).body(payBody()).post("/orders/" + order + "/pay").then()
                .statusCode(406).contentType("application/problem+json").body("type", is(TYPES + "not-acceptable"));
        assertEquals(0, Sql.historyCount(order, "PAY"), "a refused PAY moved nothing");
    }

    @TestHTTPResource("/orders")
    URI orders;

    /**
     * POSTs {@code body} chunked: the client cannot know its length, so it sends no Content-Length. The exchange is
     * validated against the contract like every RESTAssured one.
     */
    private HttpResponse<String> postChunked(String customer, String body) throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        HttpRequest request = HttpRequest.newBuilder(orders).version(HttpClient.Version.HTTP_1_1)
                .header("Authorization", "Bearer " + Auth.token("customer", customer))
                .header("Content-Type", "application/json").header("Idempotency-Key", newKey())
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))).build();
        HttpResponse<String> answer = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        // an oversized body breaks the schema's bounds on purpose: only the answer is held to the contract then
        return bytes.length > 64 * 1024 ? Contract.asDocumentedResponse(request, answer)
                : Contract.asDocumented(request, body, answer);
    }

    @Test
    void shouldAnswerAChunkedBodyOverTheDocumentedSizeWithA413ProblemAndWriteNothing() throws Exception {
        assertChunkedBodyRefused(100 * 1024);
    }

    /**
     * The original defect: past the HTTP layer's own 1 MB backstop a chunked body got a plain 413 and the log an
     * ERROR "Response has already been written". The edge answers at 64 KB and reads no further.
     */
    @Test
    void shouldAnswerAChunkedBodyOverOneMegabyteWithA413ProblemAndLogNoError() throws Exception {
        try (CapturedLog log = CapturedLog.start()) {
            assertChunkedBodyRefused(1536 * 1024);
            Auth.operator().get("/orders?limit=1").then().statusCode(200); // the service goes on
            assertEquals(List.of(), log.atLeast(Level.SEVERE), "nothing logged at ERROR");
        }
    }

    private void assertChunkedBodyRefused(int paddingBytes) throws Exception {
        String customer = newCustomer();
        JsonObject body = new JsonObject(new HashMap<>(orderBody(customer))).put("padding",
                "x".repeat(paddingBytes));
        HttpResponse<String> answer = postChunked(customer, body.encode());
        assertEquals(413, answer.statusCode(), answer.body());
        assertEquals("application/problem+json", answer.headers().firstValue("Content-Type").orElse(null));
        assertEquals(TYPES + "payload-too-large", new JsonObject(answer.body()).getString("type"));
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
        assertEquals(0, Sql.count("select count(*) from idempotency_keys where scope like ?",
                "customer:" + customer + " %"));
    }

    @Test
    void shouldReadAChunkedBodyWithinTheLimitAsAnyOther() throws Exception {
        String customer = newCustomer();
        HttpResponse<String> answer = postChunked(customer, new JsonObject(orderBody(customer)).encode());
        assertEquals(201, answer.statusCode(), answer.body());
        assertEquals(customer, new JsonObject(answer.body()).getString("customerId"));
    }
}
