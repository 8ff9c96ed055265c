package io.orderflow.edge;

import static io.orderflow.support.OrderMother.newCustomer;
import static io.orderflow.support.OrderMother.newKey;
import static io.orderflow.support.OrderMother.orderBody;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What Vert.x's HTTP codec refuses before any route runs, pinned as it is: an empty {@code 400} and a closed
 * connection, not a problem. Quarkus 3.33 / Vert.x 4.5 hand such a request to the HTTP server's
 * {@code invalidRequestHandler}, which Quarkus neither sets nor exposes: a Router (its {@code errorHandler(400)} or a
 * first route) never sees it, and an {@code HttpServerOptionsCustomizer} only changes options (docs/failure-behaviour.md).
 * What matters is that nothing happens: each request here would otherwise create an order.
 */
@QuarkusTest
class CodecRefusalsTest {

    @TestHTTPResource("/")
    URL service;

    @Test
    void shouldRefuseControlCharactersInAHeaderValueWithAnEmpty400AClosedConnectionAndNoEffect() throws IOException {
        for (String value : List.of("a\u0000b", "a\rb", "a\nb", "a\u0001b", "\u007f")) {
            assertRefusedBeforeAnyRoute("X-Note: " + value + "\r\n", value);
        }
    }

    @Test
    void shouldRefuseAContentLengthThatIsNoNumberWithAnEmpty400AClosedConnectionAndNoEffect() throws IOException {
        for (String length : List.of("abc", "+{n}", "-1", "{n}, 3", "0x10", "")) {
            assertRefusedBeforeAnyRoute("Content-Length: " + length + "\r\n", length);
        }
    }

    @Test
    void shouldRefuseTwoDifferentContentLengthsTheSameWay() throws IOException {
        assertRefusedBeforeAnyRoute("Content-Length: {n}\r\nContent-Length: 3\r\n", "two lengths");
    }

    /**
     * A Content-Length past the HTTP layer's own 1 MB backstop is judged by the edge like any other over 64 KB: a
     * 413 problem before one byte of the body is read (Quarkus's own check would answer a plain 413).
     */
    @Test
    void shouldAnswerADeclaredLengthOverOneMegabyteWithA413ProblemBeforeReadingTheBody() {
        long[] lengths = { 64 * 1024 + 1, 2 * 1024 * 1024, Long.MAX_VALUE };
        String[] customers = { newCustomer(), newCustomer(), newCustomer() };
        // the headers alone: the service must answer without waiting for the body; sent at once, since each
        // connection is closed only after the refusal's linger
        List<RawHttp.Exchange> answers = Parallel.run(lengths.length, i -> {
            try {
                return RawHttp.send(service, createOrder(customers[i], "Content-Length: " + lengths[i]
                        + "\r\n").replaceFirst("\r\n\r\n.*$", "\r\n\r\n"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        for (int i = 0; i < lengths.length; i++) {
            RawHttp.Exchange answer = answers.get(i);
            String customer = customers[i];
            assertAll("Content-Length " + lengths[i],
                    () -> assertEquals("HTTP/1.1 413 Request Entity Too Large", answer.statusLine(), answer.text()),
                    () -> assertEquals("application/problem+json", answer.header("content-type")),
                    () -> assertEquals("https://orderflow.dev/problems/payload-too-large",
                            new JsonObject(answer.body()).getString("type")),
                    () -> assertTrue(answer.closedByService(), "the connection is closed: the body is never read"),
                    () -> assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer)));
        }
    }

    /** The same request with well-formed headers creates its order: the refusal is the codec's, not the request's. */
    @Test
    void shouldCreateTheOrderWhenTheSameRequestIsWellFormed() throws IOException {
        String customer = newCustomer();
        RawHttp.Exchange answer = RawHttp.send(service, createOrder(customer, "Content-Length: {n}\r\n"
                + "Connection: close\r\n"));
        assertEquals("HTTP/1.1 201 Created", answer.statusLine(), answer.text());
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    private void assertRefusedBeforeAnyRoute(String extraHeaders, String what) throws IOException {
        String customer = newCustomer();
        RawHttp.Exchange answer = RawHttp.send(service, createOrder(customer, extraHeaders));
        assertAll(what,
                () -> assertEquals("HTTP/1.1 400 Bad Request", answer.statusLine(), answer.text()),
                () -> assertEquals("0", answer.header("content-length"), "no body: " + answer.text()),
                () -> assertEquals("", answer.body()),
                () -> assertTrue(answer.closedByService(), "the connection is closed"),
                () -> assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer)),
                () -> assertEquals(0, Sql.count("select count(*) from idempotency_keys where scope like ?",
                        "customer:" + customer + " %")));
    }

    /** A complete, authorised create; {@code {n}} in {@code headers} stands for the body's real length. */
    private static String createOrder(String customer, String headers) {
        String body = new JsonObject(orderBody(customer)).encode();
        return "POST /orders HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                + Auth.token("customer", customer) + "\r\nContent-Type: application/json\r\nIdempotency-Key: "
                + newKey() + "\r\n" + headers.replace("{n}", String.valueOf(body.length())) + "\r\n" + body;
    }
}
