package io.orderflow.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A webhook receiver: a real HTTP server on a free loopback port that keeps every request (headers with lower-case
 * names, body) and answers each as {@code answer} says (a status code, and for 3xx the Location).
 */
public final class WebhookReceiver implements AutoCloseable {

    /** One request as received: its headers and body, how it was answered, its path, and when ({@code nanoTime}). */
    public record Received(Map<String, List<String>> headers, String body, int answered, String path, long nanos) {

        public String header(String name) {
            List<String> values = headers.get(name);
            return values == null || values.isEmpty() ? null : values.get(0);
        }
    }

    /** How to answer a request: a status, and where to for a redirect. */
    public record Answer(int status, String location) {

        public static Answer of(int status) {
            return new Answer(status, null);
        }
    }

    private final HttpServer server;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger mostOpen = new AtomicInteger();
    private volatile Function<Received, Answer> answer;

    private WebhookReceiver(Function<Received, Answer> answer) throws IOException {
        this.answer = answer;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        // a thread per request being answered: a test that holds answers sees as many at once as were sent
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", this::handle);
        server.start();
    }

    public static WebhookReceiver start(Function<Received, Answer> answer) {
        try {
            return new WebhookReceiver(answer);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Answers 200 to everything. */
    public static WebhookReceiver accepting() {
        return start(request -> Answer.of(200));
    }

    public void answer(Function<Received, Answer> answer) {
        this.answer = answer;
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    public List<Received> received() {
        return new ArrayList<>(received);
    }

    /** The most requests this receiver had open at once (received, not yet answered). */
    public int mostOpenAtOnce() {
        return mostOpen.get();
    }

    /** The requests whose CloudEvent's subject (the order id) is {@code orderId}. */
    public List<Received> about(String orderId) {
        return received.stream().filter(r -> r.body().contains("\"subject\": \"" + orderId + "\"")
                || r.body().contains("\"subject\":\"" + orderId + "\"")).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        mostOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
        try {
            answer(exchange);
        } finally {
            open.decrementAndGet();
        }
    }

    private void answer(HttpExchange exchange) throws IOException {
        Map<String, List<String>> headers = new TreeMap<>();
        exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT),
                List.copyOf(values)));
        String body;
        try (InputStream in = exchange.getRequestBody()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        long at = System.nanoTime();
        String path = exchange.getRequestURI().getPath();
        Received request = new Received(headers, body, 0, path, at);
        Answer reply = answer.apply(request);
        received.add(new Received(headers, body, reply.status(), path, at));
        if (reply.location() != null) {
            exchange.getResponseHeaders().add("Location", reply.location());
        }
        exchange.sendResponseHeaders(reply.status(), -1);
        try (OutputStream out = exchange.getResponseBody()) {
            out.flush();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        ((ExecutorService) server.getExecutor()).shutdownNow();
    }
}
