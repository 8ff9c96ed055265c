package io.orderflow.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.net.URL;
import org.junit.jupiter.api.Test;

/**
 * The service speaks HTTP/1.1 only ({@code quarkus.http.http2=false}): cleartext HTTP/2 is refused both ways a client
 * can ask for it, so no connection carries streams past the limits every HTTP/1.1 request is held to.
 */
@QuarkusTest
class ClearTextHttp2Test {

    /** The connection preface of HTTP/2 by prior knowledge (RFC 9113 §3.4), then an empty SETTINGS frame. */
    private static final String PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
            + "\u0000\u0000\u0000\u0004\u0000\u0000\u0000\u0000\u0000";

    @TestHTTPResource("/")
    URL service;

    @Test
    void shouldRefuseAnHttp2PriorKnowledgeConnectionAsHttp11AndCloseIt() throws IOException {
        RawHttp.Exchange exchange = RawHttp.send(service, PREFACE);
        assertTrue(exchange.closedByService(), "the connection is closed");
        // the HTTP/1.1 codec reads the preface as a request line of an unknown version, and refuses it in text
        // (echoing the version: "HTTP/2.0 400 Bad Request"), where an HTTP/2 server would answer a SETTINGS frame
        assertTrue(exchange.statusLine().matches("HTTP/\\d\\.\\d 400 Bad Request"),
                "a text refusal, no HTTP/2 frame: " + exchange.statusLine());
    }

    @Test
    void shouldAnswerAnUpgradeToH2cInHttp11() throws IOException {
        String head = RawHttp.head(service, "GET /q/openapi HTTP/1.1\r\nHost: localhost\r\n"
                + "Connection: Upgrade, HTTP2-Settings, close\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n");
        assertEquals("HTTP/1.1 200 OK", head.lines().findFirst().orElse(""), "not 101 Switching Protocols");
    }
}
