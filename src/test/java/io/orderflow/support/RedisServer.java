package io.orderflow.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A {@code redis-server} of the tests' own: a child process on a free port of 127.0.0.1, nothing kept on disk, its
 * pid written beside its log so that a later run can stop it if this JVM died without doing so.
 */
public final class RedisServer {

    private static final String HOST = "127.0.0.1";

    private final Path dir;
    private final int port;
    private Process process;

    private RedisServer(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /** Starts a server on a free port, logging into {@code dir}. */
    public static RedisServer start(Path dir) {
        RedisServer server = new RedisServer(dir, FreePorts.take());
        server.restart();
        return server;
    }

    public int port() {
        return port;
    }

    /** Starts the server (again) on its port and waits until it accepts connections. */
    public synchronized void restart() {
        try {
            Files.createDirectories(dir);
            process = new ProcessBuilder("redis-server", "--port", String.valueOf(port), "--bind", HOST, "--save", "",
                    "--appendonly", "no", "--dir", dir.toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile())).start();
            Files.writeString(dir.resolve("redis.pid"), String.valueOf(process.pid()));
        } catch (IOException e) {
            throw new IllegalStateException("redis-server must be installed for the tests' own Redis", e);
        }
        awaitListening(true);
    }

    /** Kills the server and waits until its port is closed. */
    public synchronized void stop() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
        awaitListening(false);
    }

    /** Stops the redis-server a dead JVM started in {@code dir}, by the pid it left there (only if it is one). */
    static void stopLeftover(Path dir) {
        Path pidFile = dir.resolve("redis.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        try {
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            ProcessHandle.of(pid).filter(p -> p.info().command().orElse("").contains("redis-server"))
                    .ifPresent(ProcessHandle::destroyForcibly);
        } catch (IOException | NumberFormatException e) {
            // nothing to stop
        }
    }

    private void awaitListening(boolean listening) {
        for (int i = 0; i < 200; i++) {
            if (isListening() == listening) {
                return;
            }
            if (listening && process != null && !process.isAlive()) {
                throw new IllegalStateException("redis-server exited at start; see " + dir.resolve("redis.log"));
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        throw new IllegalStateException("redis-server on port " + port + " did not " + (listening ? "start" : "stop"));
    }

    private boolean isListening() {
        try (Socket ignored = new Socket(HOST, port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
