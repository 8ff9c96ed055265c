package io.orderflow.support;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.net.Socket;
import java.util.Map;

/**
 * A Redis server of the test's own (the real {@code redis-server} binary, as a child process on its own port), so a
 * test can really stop it mid-way and start it again.
 */
public class KillableRedis implements QuarkusTestResourceLifecycleManager {

    public static final int PORT = 6391;
    private static Process process;

    @Override
    public Map<String, String> start() {
        startServer();
        return Map.of("quarkus.redis.hosts", "redis://127.0.0.1:" + PORT);
    }

    @Override
    public void stop() {
        stopServer();
    }

    public static synchronized void startServer() {
        try {
            process = new ProcessBuilder("redis-server", "--port", String.valueOf(PORT), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new IllegalStateException("redis-server must be installed for the Redis outage tests", e);
        }
        waitUntil(true);
    }

    public static synchronized void stopServer() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
        waitUntil(false);
    }

    private static void waitUntil(boolean listening) {
        for (int i = 0; i < 100; i++) {
            if (isListening() == listening) {
                return;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        throw new IllegalStateException("redis-server on port " + PORT + " did not " + (listening ? "start" : "stop"));
    }

    private static boolean isListening() {
        try (Socket ignored = new Socket("127.0.0.1", PORT)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
