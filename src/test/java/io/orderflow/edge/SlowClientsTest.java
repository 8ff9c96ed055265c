package io.orderflow.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.NarrowOverrides;
import io.quarkus.runtime.configuration.DurationConverter;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.net.Socket;
import java.net.SocketException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Connections that send part of a request and then nothing are closed by the service (quarkus.http.idle-timeout),
 * instead of each holding a file descriptor forever; meanwhile and afterwards normal requests are served. Under an
 * idle timeout of {@value NarrowOverrides#IDLE_TIMEOUT} rather than the shipped one, which the test would otherwise
 * sit out; that one is held to a bound below.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(NarrowOverrides.class)
class SlowClientsTest {

    private static final int STALLED = 50;
    /** Far longer than the idle timeout: a read that is still blocked then means the service kept the connection. */
    private static final int READ_TIMEOUT_MILLIS = 5 * 60 * 1000;

    @TestHTTPResource("/")
    URL service;

    @Test
    void shouldCloseStalledConnectionsAndKeepServingOthers() throws IOException {
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < STALLED; i++) {
                Socket socket = new Socket(service.getHost(), service.getPort());
                socket.setSoTimeout(READ_TIMEOUT_MILLIS);
                OutputStream out = socket.getOutputStream();
                // a request line and half a header, never finished
                out.write(("GET /orders HTTP/1.1\r\nHost: localhost\r\nX-Slow: a").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                stalled.add(socket);
            }
            Auth.operator().get("/orders?limit=1").then().statusCode(200);
            int closed = 0;
            for (Socket socket : stalled) {
                if (closedByService(socket.getInputStream())) {
                    closed++;
                }
            }
            assertEquals(STALLED, closed, "every stalled connection was closed by the service");
            Auth.operator().get("/orders?limit=1").then().statusCode(200);
        } finally {
            for (Socket socket : stalled) {
                socket.close();
            }
        }
    }

    @Test
    void shouldShipAnIdleTimeoutOfAMinuteAtMost() throws IOException {
        Properties shipped = new Properties();
        try (Reader reader = Files.newBufferedReader(Path.of("src/main/resources/application.properties"))) {
            shipped.load(reader);
        }
        String timeout = shipped.getProperty("quarkus.http.idle-timeout");
        assertNotNull(timeout, "application.properties sets quarkus.http.idle-timeout");
        assertTrue(DurationConverter.parseDuration(timeout).compareTo(Duration.ofMinutes(1)) <= 0,
                "a stalled connection holds a file descriptor at most a minute: " + timeout);
    }

    /** True when the service closed the connection without answering; a read timeout fails the test. */
    private static boolean closedByService(InputStream in) throws IOException {
        try {
            return in.read() == -1;
        } catch (SocketException reset) {
            return true;
        }
    }
}
