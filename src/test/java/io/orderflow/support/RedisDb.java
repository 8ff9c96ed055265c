package io.orderflow.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The process-level tests' Redis: logical database 2 (system property {@code orderflow.it.redisDb}) on
 * 127.0.0.1:6379, spoken to in raw RESP (no client library needed for the two commands the tests use).
 */
public final class RedisDb {

    public static final int DB = Integer.getInteger("orderflow.it.redisDb", 2);
    public static final String URL = "redis://127.0.0.1:6379/" + DB;

    private RedisDb() {
    }

    /** Empties database 2 only: cached responses and in-flight markers of the service instances under test. */
    public static void flush() {
        String reply = send("SELECT", String.valueOf(DB), "FLUSHDB");
        if (!reply.startsWith("+OK\r\n+OK")) {
            throw new IllegalStateException("Redis refused FLUSHDB: " + reply);
        }
    }

    /** Sends SELECT db then one command (given as its words after the two SELECT words); returns the raw replies. */
    private static String send(String select, String db, String... command) {
        try (Socket socket = new Socket("127.0.0.1", 6379)) {
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
            throw new UncheckedIOException("Redis is not reachable on 127.0.0.1:6379", e);
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
