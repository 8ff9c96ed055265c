package io.orderflow.client.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy in front of the service that can cut a connection after the request went through: armed with
 * {@link #cutNextAnswer()}, it closes both sides when the service's answer starts to come back, and forwards none
 * of it. The service has then received the request whole, and acted on it; the client sees its connection die.
 * It also writes down the head of every request and answer it carries, so a test sees on the wire which keys were
 * sent and what came back.
 */
final class CuttingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int upstreamPort;
    private final AtomicBoolean cut = new AtomicBoolean();
    private final List<String> requests = new ArrayList<>();
    private final List<String> answers = new ArrayList<>();

    private CuttingProxy(ServerSocket server, int upstreamPort) {
        this.server = server;
        this.upstreamPort = upstreamPort;
    }

    static CuttingProxy to(URI upstream) throws IOException {
        CuttingProxy proxy = new CuttingProxy(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()),
                upstream.getPort());
        Thread accept = new Thread(proxy::accept, "cutting-proxy");
        accept.setDaemon(true);
        accept.start();
        return proxy;
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** The next answer to come back is cut off: both connections closed at its first byte. */
    void cutNextAnswer() {
        cut.set(true);
    }

    /** The heads (request line and headers) of the requests carried so far, in order. */
    List<String> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    /** The heads of the answers carried so far (not those cut off), in order. */
    List<String> answers() {
        synchronized (answers) {
            return List.copyOf(answers);
        }
    }

    void forget() {
        synchronized (requests) {
            requests.clear();
        }
        synchronized (answers) {
            answers.clear();
        }
    }

    /** The value of {@code header} in a recorded head, or null. */
    static String header(String head, String header) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(header)) {
                return line.substring(colon + 1).trim();
            }
        }
        return null;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
                pump(client, upstream, requests, false);
                pump(upstream, client, answers, true);
            } catch (IOException e) {
                // closed
            }
        }
    }

    private void pump(Socket from, Socket to, List<String> heads, boolean answers) {
        Thread thread = new Thread(() -> {
            Heads parser = new Heads(heads);
            byte[] buffer = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    if (answers && cut.compareAndSet(true, false)) {
                        break;
                    }
                    parser.feed(buffer, n);
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "cutting-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }

    /** Splits an HTTP/1.1 byte stream into heads, skipping bodies by their Content-Length. */
    private static final class Heads {

        private final List<String> heads;
        private final StringBuilder pending = new StringBuilder();
        private long bodyLeft;

        Heads(List<String> heads) {
            this.heads = heads;
        }

        void feed(byte[] bytes, int length) {
            pending.append(new String(bytes, 0, length, StandardCharsets.ISO_8859_1));
            while (true) {
                if (bodyLeft > 0) {
                    int skip = (int) Math.min(bodyLeft, pending.length());
                    pending.delete(0, skip);
                    bodyLeft -= skip;
                    if (bodyLeft > 0) {
                        return;
                    }
                }
                int end = pending.indexOf("\r\n\r\n");
                if (end < 0) {
                    return;
                }
                String head = pending.substring(0, end);
                pending.delete(0, end + 4);
                if (head.matches("(?s)(HTTP/1\\.1 |[A-Z]+ /).*")) {   // not the tail of a chunked body
                    synchronized (heads) {
                        heads.add(head);
                    }
                }
                String contentLength = header(head, "Content-Length");
                bodyLeft = contentLength == null ? 0 : Long.parseLong(contentLength.trim());
            }
        }
    }
}
