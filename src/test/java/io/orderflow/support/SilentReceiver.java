package io.orderflow.support;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A receiver that takes connections and requests and never answers: a webhook endpoint that hangs. It counts the
 * connections its client holds open at once (a connection the client gave up on is closed by it), which is how many
 * requests the client had waiting on it.
 */
public final class SilentReceiver implements AutoCloseable {

    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger mostOpen = new AtomicInteger();
    private final AtomicInteger accepted = new AtomicInteger();

    public SilentReceiver() {
        try {
            server = new ServerSocket(0, 1000, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        threads.execute(this::accept);
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getLocalPort() + path;
    }

    /** The most connections its clients held open at once. */
    public int mostOpenAtOnce() {
        return mostOpen.get();
    }

    /** Connections taken so far. */
    public int accepted() {
        return accepted.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                accepted.incrementAndGet();
                mostOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
                threads.execute(() -> drain(socket));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Reads whatever comes until the client closes the connection; answers nothing. */
    private void drain(Socket socket) {
        try (socket; InputStream in = socket.getInputStream()) {
            byte[] buffer = new byte[8192];
            while (in.read(buffer) >= 0) {
                // the request, read and ignored
            }
        } catch (IOException e) {
            // the client reset the connection
        } finally {
            open.decrementAndGet();
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        threads.shutdownNow();
    }
}
