package io.orderflow.edge;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.CappedProxiedService;
import io.orderflow.support.Sql;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A body that trickles in (one byte at a time, never idle long enough for the idle timeout) is cut once
 * {@code orders.http.body-timeout} (set to {@value CappedProxiedService#BODY_TIMEOUT} here) has passed since its
 * headers: the connection is closed without an answer, long before the body could have arrived, and nothing is
 * written.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(CappedProxiedService.class)
class TricklingBodyTest {

    /** Between two bytes of the body: well within the idle timeout, far too slow for the whole body. */
    private static final long PAUSE_MILLIS = 200;

    @TestHTTPResource("/")
    URL service;

    @Test
    void shouldCloseTheConnectionOfABodyThatTricklesPastTheBoundAndWriteNothing() throws Exception {
        String customer = newCustomer();
        byte[] body = new JsonObject(orderBody(customer)).encode().getBytes(StandardCharsets.UTF_8);
        String head = "POST /orders HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                + Auth.token("customer", customer) + "\r\nContent-Type: application/json\r\nIdempotency-Key: "
                + newKey() + "\r\nContent-Length: " + body.length + "\r\n\r\n";
        AtomicInteger sent = new AtomicInteger();
        try (Socket socket = RawHttp.connect(service)) {
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            CompletableFuture<Void> trickling = CompletableFuture.runAsync(() -> trickle(out, body, sent));

            RawHttp.Exchange exchange = RawHttp.readToEnd(socket);

            assertTrue(exchange.closedByService(), "the service closed the connection");
            assertEquals("", exchange.text(), "without an answer");
            assertTrue(sent.get() < body.length, "before the body was whole: " + sent.get() + " of " + body.length);
            trickling.cancel(true);
        }
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }

    /** Sends {@code body} one byte at a time until it is sent or the connection is gone. */
    private static void trickle(OutputStream out, byte[] body, AtomicInteger sent) {
        try {
            for (byte b : body) {
                Thread.sleep(PAUSE_MILLIS);
                out.write(b);
                out.flush();
                sent.incrementAndGet();
            }
        } catch (IOException | InterruptedException closed) {
            // the service closed the connection, or the test is over
        }
    }
}
