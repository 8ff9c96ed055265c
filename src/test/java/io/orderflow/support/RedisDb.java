package io.orderflow.support;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The process-level tests' Redis: database {@value TestServices#IT_REDIS_DB} of the test Redis
 * ({@link TestServices}), spoken to in raw RESP (no client library needed for the few commands the tests use).
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
        Object reply = command("FLUSHDB");
        if (!"OK".equals(reply)) {
            throw new IllegalStateException("Redis refused FLUSHDB: " + reply);
        }
    }

    /** Every entry of the stream {@code key}, oldest first, as its fields and values ({@code XRANGE key - +}). */
    public static List<Map<String, String>> streamEntries(String key) {
        return streamEntries(key, TestServices.get().redis());
    }

    /** The same, on the Redis server {@code server} (its database {@link #DB}). */
    public static List<Map<String, String>> streamEntries(String key, TestServices.Redis server) {
        List<Map<String, String>> entries = new ArrayList<>();
        for (Object entry : (List<?>) command(server, "XRANGE", key, "-", "+")) {
            List<?> fields = (List<?>) ((List<?>) entry).get(1);
            Map<String, String> payload = new LinkedHashMap<>();
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                payload.put((String) fields.get(i), (String) fields.get(i + 1));
            }
            entries.add(payload);
        }
        return entries;
    }

    /** Sends SELECT and then {@code command} on a connection of its own; returns the command's reply. */
    private static Object command(String... command) {
        return command(TestServices.get().redis(), command);
    }

    private static Object command(TestServices.Redis redis, String... command) {
        try (Socket socket = new Socket(redis.host(), redis.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(resp("SELECT", String.valueOf(DB)));
            out.write(resp(command));
            out.flush();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            Object selected = reply(in);
            if (!"OK".equals(selected)) {
                throw new IllegalStateException("Redis refused SELECT " + DB + ": " + selected);
            }
            return reply(in);
        } catch (IOException e) {
            throw new UncheckedIOException("The test Redis is not reachable: " + TestServices.get(), e);
        }
    }

    /** One RESP2 reply: a simple string, integer (as text) or bulk string, or a list of replies; an error throws. */
    private static Object reply(InputStream in) throws IOException {
        int type = in.read();
        String line = line(in);
        switch (type) {
            case '+', ':' -> {
                return line;
            }
            case '$' -> {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                String bulk = new String(in.readNBytes(length), StandardCharsets.UTF_8);
                line(in);
                return bulk;
            }
            case '*' -> {
                int count = Integer.parseInt(line);
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    items.add(reply(in));
                }
                return items;
            }
            case -1 -> throw new EOFException("Redis closed the connection");
            default -> throw new IllegalStateException("Redis answered " + (char) type + line);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\n') {
            if (c == -1) {
                throw new EOFException("Redis closed the connection mid-reply");
            }
            if (c != '\r') {
                line.write(c);
            }
        }
        return line.toString(StandardCharsets.UTF_8);
    }

    private static byte[] resp(String... words) {
        StringBuilder b = new StringBuilder("*").append(words.length).append("\r\n");
        for (String w : words) {
            b.append('$').append(w.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(w).append("\r\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }
}
