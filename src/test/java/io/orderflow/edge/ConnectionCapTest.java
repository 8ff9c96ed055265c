package io.orderflow.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.Await;
import io.orderflow.support.CappedProxiedService;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code quarkus.http.limits.max-connections} bounds the file descriptors clients can hold: with a cap of
 * {@value CappedProxiedService#MAX_CONNECTIONS}, connections beyond it are closed at once without an answer, the
 * ones within it are served, and once clients let go a normal request gets through again.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(CappedProxiedService.class)
class ConnectionCapTest {

    private static final int BEYOND = 10;

    @TestHTTPResource("/")
    URL service;

    @Test
    void shouldCloseConnectionsBeyondTheCapAndServeAgainOnceOthersClose() throws Exception {
        List<Socket> held = new ArrayList<>();
        int served = 0;
        int refused = 0;
        try {
            for (int i = 0; i < CappedProxiedService.MAX_CONNECTIONS + BEYOND; i++) {
                held.add(RawHttp.connect(service));
            }
            // every connection is open from the client's side; ask on each, keeping all of them open
            for (Socket socket : held) {
                if (answers(socket)) {
                    served++;
                } else {
                    refused++;
                }
            }
        } finally {
            for (Socket socket : held) {
                socket.close();
            }
        }
        assertTrue(served <= CappedProxiedService.MAX_CONNECTIONS, served + " connections were served at once");
        assertTrue(refused >= BEYOND, "only " + refused + " connections beyond the cap were refused");
        assertTrue(served > 0, "connections within the cap are served");
        assertEquals(200, afterTheyClose(), "a normal request is served once the held connections are closed");
    }

    /**
     * The cap counts connections as they are accepted, not once their headers are complete: twice the cap of
     * connections that each send half a header and then nothing, and all beyond the cap are closed by the service
     * (seen as end of stream) long before the idle timeout would close any.
     */
    @Test
    void shouldCloseHalfHeaderConnectionsBeyondTheCapAsTheyAreAccepted() throws Exception {
        int opened = 2 * CappedProxiedService.MAX_CONNECTIONS;
        List<SocketChannel> channels = new ArrayList<>();
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < opened; i++) {
                SocketChannel channel = SocketChannel.open(new InetSocketAddress(service.getHost(), service.getPort()));
                channels.add(channel);
                try {
                    channel.write(ByteBuffer.wrap("GET /q/health/live HTTP/1.1\r\nHost: localhost\r\nX-Half: a"
                            .getBytes(StandardCharsets.US_ASCII)));
                } catch (IOException closedAtAccept) {
                    // already closed by the service: counted below like the others
                }
                channel.configureBlocking(false);
                channel.register(selector, SelectionKey.OP_READ);
            }
            Set<SocketChannel> closed = new HashSet<>();
            Await.until(() -> closedBy(selector, closed) >= opened - CappedProxiedService.MAX_CONNECTIONS,
                    "the connections beyond the cap to be closed");
            int held = opened - closed.size();
            assertTrue(held <= CappedProxiedService.MAX_CONNECTIONS, held + " half-header connections were held");
            assertTrue(held > 0, "connections within the cap are held until they finish or idle out");
        } finally {
            for (SocketChannel channel : channels) {
                channel.close();
            }
        }
        assertEquals(200, afterTheyClose(), "a normal request is served once the held connections are closed");
    }

    /** Reads whatever is ready; a channel at end of stream (or reset) joins {@code closed}. Returns its size. */
    private static int closedBy(Selector selector, Set<SocketChannel> closed) {
        try {
            selector.selectNow();
            ByteBuffer buffer = ByteBuffer.allocate(1024);
            for (SelectionKey key : selector.selectedKeys()) {
                SocketChannel channel = (SocketChannel) key.channel();
                buffer.clear();
                int read;
                try {
                    read = channel.read(buffer);
                } catch (IOException reset) {
                    read = -1;
                }
                if (read == -1) {
                    closed.add(channel);
                    key.cancel();
                }
            }
            selector.selectedKeys().clear();
            return closed.size();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends a health probe on the connection and reads its status line; false when the service closed it. */

    /** Asks for the API document (public, no token) on the connection and reads its status line; false when the service closed it. */
    private static boolean answers(Socket socket) {
        try {
            socket.getOutputStream().write("GET /q/openapi HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            byte[] status = new byte[12];
            int read = 0;
            for (int n; read < status.length && (n = in.read(status, read, status.length - read)) != -1;) {
                read += n;
            }
            return read == status.length && new String(status, StandardCharsets.US_ASCII).equals("HTTP/1.1 200");
        } catch (IOException closedByTheService) {
            return false;
        }
    }

    /**
     * The service counts a connection as gone when it has seen it close, which may lag the client's close by a
     * moment: the request is retried a bounded number of times on fresh connections.
     */
    private static int afterTheyClose() throws InterruptedException {
        int status = -1;
        for (int attempt = 0; attempt < 50 && status != 200; attempt++) {
            try {
                status = Auth.operator().get("/orders?limit=1").statusCode();
            } catch (RuntimeException closedAtAccept) {
                Thread.sleep(100);
            }
        }
        return status;
    }
}
