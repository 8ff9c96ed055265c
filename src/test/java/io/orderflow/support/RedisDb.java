package io.orderflow.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The process-level tests' Redis: database {@value TestServices#IT_REDIS_DB} of the test Redis
 * ({@link TestServices}), spoken to in raw RESP (no client library needed for the two commands the tests use).
 */
public final class RedisDb {

    public static final int DB = TestServices.IT_REDIS_DB;

    private RedisDb() {
    }

    /** The URL the service instances under test get. */
    public static String url() {
        return TestServices.get().redis().url(DB);
    }

    /** Empties the tests' database only: cached responses and in-flight markers of the service instances under test. */
    public static void flush() {
        String reply = send("SELECT", String.valueOf(DB), "FLUSHDB");
        if (!reply.startsWith("+OK\r\n+OK")) {
            throw new IllegalStateException("Redis refused FLUSHDB: " + reply);
        }
    }

    /** Sends SELECT db then one command (given as its words after the two SELECT words); returns the raw replies. */
    private static String send(String select, String db, String... command) {
        TestServices.Redis redis = TestServices.get().redis();
        try (Socket socket = new Socket(redis.host(), redis.port())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(resp(select, db));
            out.write(resp(command));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder replies = new StringBuilder();
            int lines = 0;
            int c;
            while (lines < 2 && (c = in.read()) != -1) {
                replies.append((char) c);
                if (c == '\n') {
                    lines++;
                }
            }
            return replies.toString();
        } catch (IOException e) {
            throw new UncheckedIOException("The test Redis is not reachable: " + TestServices.get(), e);
        }
    }

    private static byte[] resp(String... words) {
        StringBuilder b = new StringBuilder("*").append(words.length).append("\r\n");
        for (String w : words) {
            b.append('$').append(w.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(w).append("\r\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }
}
