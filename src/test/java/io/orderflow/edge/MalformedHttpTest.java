package io.orderflow.edge;

import static io.orderflow.support.OrderMother.newCustomer;
import static io.orderflow.support.OrderMother.newKey;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.CapturedLog;
import io.orderflow.support.Sql;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URL;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * Requests the HTTP codec cannot read to their end (issue 43, item 7): a chunked body whose chunk size is no hex
 * number, and the HTTP/2 connection preface sent to the HTTP/1.1 port. Each is answered with a 400 problem+json and
 * its connection closed, writes nothing, and logs below ERROR: a thousand of them must not fill the log with stack
 * traces.
 */
@QuarkusTest
class MalformedHttpTest {

    /** The connection preface of HTTP/2 by prior knowledge (RFC 9113 §3.4), then an empty SETTINGS frame. */
    private static final String PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
            + "\u0000\u0000\u0000\u0004\u0000\u0000\u0000\u0000\u0000";

    @TestHTTPResource("/")
    URL service;

    @Test
    void shouldAnswerAChunkSizeThatIsNoHexNumberWithA400ProblemAndLogNoError() throws IOException {
        for (String size : List.of("ZZ", "FFFFFFFFFFFFFFFFFF", "-1", "1;ext=\u0000")) {
            String customer = newCustomer();
            RawHttp.Exchange answer;
            try (CapturedLog log = CapturedLog.start()) {
                answer = RawHttp.send(service, "POST /orders HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                        + Auth.token("customer", customer) + "\r\nContent-Type: application/json\r\nIdempotency-Key: "
                        + newKey() + "\r\nTransfer-Encoding: chunked\r\n\r\n" + size + "\r\n{}\r\n0\r\n\r\n");
                assertEquals(List.of(), log.atLeast(Level.SEVERE), "no ERROR for chunk size " + size);
            }
            assertRefusedAsProblem(answer, size);
            assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
        }
    }

    @Test
    void shouldAnswerAnHttp2PrefaceWithA400ProblemAndLogNoError() throws IOException {
        RawHttp.Exchange answer;
        try (CapturedLog log = CapturedLog.start()) {
            answer = RawHttp.send(service, PREFACE);
            assertEquals(List.of(), log.atLeast(Level.SEVERE), "no ERROR for the HTTP/2 preface");
        }
        assertRefusedAsProblem(answer, "the HTTP/2 preface");
        assertTrue(!answer.body().contains("Error id"), answer.body());
    }

    private static void assertRefusedAsProblem(RawHttp.Exchange answer, String what) {
        assertAll(what,
                () -> assertTrue(answer.statusLine().matches("HTTP/\\d\\.\\d 400 .*"), answer.text()),
                () -> assertEquals("application/problem+json", answer.header("content-type"), answer.text()),
                () -> assertEquals(400, new JsonObject(answer.body()).getInteger("status"), answer.text()),
                () -> assertTrue(answer.closedByService(), "the connection is closed"));
    }
}
