package io.orderflow.process;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.support.Auth;
import io.orderflow.support.FeedEvents;
import io.orderflow.support.ItDatabase;
import io.orderflow.support.LogScan;
import io.orderflow.support.RedisDb;
import io.orderflow.support.RedisServer;
import io.orderflow.support.ServiceClient;
import io.orderflow.support.ServiceProcess;
import io.orderflow.support.SilentReceiver;
import io.orderflow.support.TestServices;
import io.orderflow.support.WebhookReceiver;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The event pipeline at the scale it must hold, in a real service process: {@value #HEALTHY} webhook endpoints on
 * loopback receivers plus one that never answers, orders created one after another; every order's creation is in
 * the feed within seconds and reaches every healthy endpoint, and the silent one holds no more than its slots. Then
 * Redis is killed: the feed and webhooks go on without it, and once Redis is back (empty, as after a restart without
 * persistence) the stream catches up from its cursor. The sizes are system properties, so that
 * {@code bench/run.sh --webhooks} runs the same test at the benchmark's size (1,000 endpoints, 10 silent ones).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EventPipelineIT {

    static final int HEALTHY = 500;
    private static final int ENDPOINTS = Integer.getInteger("pipeline.endpoints", HEALTHY);
    private static final int SILENT = Integer.getInteger("pipeline.silent", 1);
    private static final int ORDERS = Integer.getInteger("pipeline.orders", 100);
    /** Clients creating orders at once, each as fast as the service answers. */
    private static final int WRITERS = Integer.getInteger("pipeline.writers", 2);
    /** Endpoints per receiver: real endpoints are on hosts of their own, each with its own connections. */
    private static final int PER_RECEIVER = 50;
    /** How soon an order must be in the feed: "within seconds", a bound, not a measurement. */
    private static final Duration WITHIN = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    /**
     * What an instance whose Redis is gone may log: the relay's failing rounds, the idempotency shutter falling back
     * to the database, and the Redis client's line for each pooled connection the killed server reset.
     */
    private static final Pattern[] REDIS_AWAY = { LogScan.REDIS_FALLBACK, LogScan.EVENT_LOOP_STALL,
        LogScan.TRANSIENT_503, LogScan.SCHEDULED_JOB_RETRIED, LogScan.SCHEDULED_AFTER_SHUTDOWN, Pattern.compile("ERROR \\[io\\.vertx\\.redis\\.client"
                + "\\.impl\\.RedisConnectionManager\\].* Unhandled Error: (java\\.net\\.SocketException: Connection"
                + " reset|io\\.netty\\.channel\\.\\w*ClosedChannelException)") };

    private final List<WebhookReceiver> receivers = new ArrayList<>();
    private final List<SilentReceiver> silent = new ArrayList<>();
    private RedisServer redis;
    private ServiceProcess service;
    private ServiceClient client;

    @BeforeAll
    void aServiceWithARedisOfItsOwn() {
        ServiceProcess.killAllStarted();
        ItDatabase.recreate();
        redis = RedisServer.start(Path.of("target", "event-pipeline-redis").toAbsolutePath());
        Map<String, String> env = new HashMap<>();
        env.put("QUARKUS_REDIS_HOSTS", new TestServices.Redis("127.0.0.1", redis.port()).url(RedisDb.DB));
        env.put("EVENTS_WEBHOOKS_ALLOW_PRIVATE_TARGETS", "true");
        env.put("EVENTS_WEBHOOKS_MAX_ENABLED_ENDPOINTS", String.valueOf(ENDPOINTS + SILENT));
        service = ServiceProcess.start("EventPipelineIT", env).awaitReady();
        client = new ServiceClient(service);
    }

    @AfterAll
    void stop() {
        if (service != null && service.isAlive()) {
            long mark = service.logLineCount();
            service.sigterm();
            service.awaitExit(Duration.ofSeconds(90));
            List<String> problems = LogScan.problemsOfStoppedInstance(service.logText(), mark, REDIS_AWAY);
            assertEquals(List.of(), problems, "errors in " + service.log());
        }
        receivers.forEach(WebhookReceiver::close);
        silent.forEach(SilentReceiver::close);
        if (redis != null) {
            redis.stop();
        }
    }

    @Test
    @Order(1)
    void shouldShowEveryOrderInTheFeedWithinSecondsAndDeliverItToEveryHealthyEndpointWhileOthersHang() {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < ENDPOINTS; i++) {
            if (i % PER_RECEIVER == 0) {
                receivers.add(WebhookReceiver.accepting());
            }
            urls.add(receivers.get(receivers.size() - 1).url("/hook/" + i));
        }
        for (int i = 0; i < SILENT; i++) {
            silent.add(new SilentReceiver());
            urls.add(silent.get(i).url("/never"));
        }
        urls.forEach(this::register);

        Map<String, Long> createdAt = new ConcurrentHashMap<>();
        FeedFollower follower = new FeedFollower(client, client.events(null, 1).json().get("next").asText());
        long started = System.nanoTime();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int first = w;
            Thread writer = new Thread(() -> {
                for (int i = first; i < ORDERS; i += WRITERS) {
                    String id = client.createOrder(ServiceClient.newCustomer(), UUID.randomUUID().toString())
                            .field("id");
                    createdAt.put(id, System.nanoTime());
                }
            }, "writer-" + w);
            writer.start();
            writers.add(writer);
        }
        writers.forEach(EventPipelineIT::join);
        double writing = (System.nanoTime() - started) / 1e9;
        awaitTrue(() -> follower.seenAll(createdAt.keySet()), Duration.ofMinutes(2), "every order in the feed");
        follower.stop();
        awaitTrue(() -> receivers.stream().mapToLong(r -> distinct(r.received())).sum() >= (long) ENDPOINTS * ORDERS,
                Duration.ofMinutes(30), "every order at every healthy endpoint");
        double seconds = (System.nanoTime() - started) / 1e9;
        long feedLagMost = createdAt.entrySet().stream().mapToLong(e -> follower.seenAt(e.getKey()) - e.getValue())
                .max().orElse(0);

        List<Long> latencies = new ArrayList<>();
        for (WebhookReceiver.Received request : receivers.get(0).received()) {
            if (request.path().equals("/hook/0")) {
                Long created = createdAt.get(subject(request.body()));
                if (created != null) {
                    latencies.add(request.nanos() - created);
                }
            }
        }
        latencies.sort(null);
        long p99 = latencies.get((int) Math.ceil(latencies.size() * 0.99) - 1);
        int mostOpen = silent.stream().mapToInt(SilentReceiver::mostOpenAtOnce).max().orElse(0);
        System.out.printf("%d endpoints + %d silent, %d orders by %d writers (%.0f/s): feed lag at most %d ms;"
                + " endpoint 0's latency p99 %d ms; %.0f deliveries/s over %.1f s; the silent ones held at most %d"
                + " requests at once%n", ENDPOINTS, SILENT, ORDERS, WRITERS, ORDERS / writing, feedLagMost / 1_000_000,
                p99 / 1_000_000, ENDPOINTS * ORDERS / seconds, seconds, mostOpen);
        Map<String, Integer> perEndpoint = new HashMap<>();
        receivers.forEach(r -> r.received().forEach(request -> perEndpoint.merge(request.path()
                + " " + request.header("webhook-id"), 1, (a, b) -> a)));
        Set<String> endpointsServed = new HashSet<>();
        perEndpoint.keySet().forEach(key -> endpointsServed.add(key.substring(0, key.indexOf(' '))));
        assertAll(
                () -> assertEquals(ENDPOINTS, endpointsServed.size(), "every healthy endpoint was served"),
                () -> assertEquals((long) ENDPOINTS * ORDERS, perEndpoint.size(), "each event once per endpoint"),
                () -> assertTrue(mostOpen <= 8, "a silent endpoint holds its slots only: " + mostOpen),
                () -> assertTrue(feedLagMost < WITHIN.toNanos(), "each order in the feed within " + WITHIN + ": at most "
                        + feedLagMost / 1_000_000 + " ms"));
    }

    @Test
    @Order(2)
    void shouldKeepTheFeedAndWebhooksGoingWithoutRedisAndCatchTheStreamUpAfterIt() {
        WebhookReceiver first = receivers.get(0);
        redis.stop();
        FeedFollower feed = new FeedFollower(client, client.events(null, 1).json().get("next").asText());
        List<String> during = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String id = client.createOrder(ServiceClient.newCustomer(), UUID.randomUUID().toString()).field("id");
            during.add(id);
            awaitTrue(() -> feed.seenAll(Set.of(id)), WITHIN, "order " + id + " in the feed while Redis is down");
        }
        feed.stop();
        awaitTrue(() -> during.stream().allMatch(id -> !first.about(id).isEmpty()), Duration.ofSeconds(60),
                "the orders made while Redis was down at a webhook endpoint");
        redis.restart(); // empty: a restart without persistence lost the stream
        awaitTrue(() -> {
            Set<String> streamed = new HashSet<>();
            RedisDb.streamEntries(FeedEvents.STREAM, new TestServices.Redis("127.0.0.1", redis.port()))
                    .forEach(entry -> streamed.add(FeedEvents.tree(entry.get("event")).path("subject").asText()));
            return streamed.containsAll(during);
        }, Duration.ofSeconds(60), "the stream to catch up with what it missed");
        assertTrue(LogScan.count(service.logText(), LogScan.SCHEDULED_JOB_RETRIED) > 0,
                "the relay said it could not reach Redis");
    }

    private void register(String url) {
        try {
            HttpRequest request = HttpRequest.newBuilder(service.uri("/webhook-endpoints"))
                    .header("Authorization", "Bearer " + Auth.token("operator", "it-operator"))
                    .header("Idempotency-Key", UUID.randomUUID().toString()).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("url", url)))).build();
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            assertEquals(201, response.statusCode(), response.body());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static long distinct(List<WebhookReceiver.Received> requests) {
        Set<String> seen = new HashSet<>();
        requests.forEach(request -> seen.add(request.path() + " " + request.header("webhook-id")));
        return seen.size();
    }

    private static String subject(String body) {
        return FeedEvents.tree(body).path("subject").asText();
    }

    /** Follows the feed on a thread of its own and remembers when it first saw each order. */
    private static final class FeedFollower {

        private final Map<String, Long> seen = new ConcurrentHashMap<>();
        private final Thread thread;
        private volatile boolean running = true;

        FeedFollower(ServiceClient client, String from) {
            thread = new Thread(() -> {
                String cursor = from;
                while (running) {
                    JsonNode page = client.events(cursor, 500).json();
                    long now = System.nanoTime();
                    page.get("events").forEach(event -> seen.putIfAbsent(event.get("subject").asText(), now));
                    cursor = page.get("next").asText();
                    if (page.get("events").isEmpty()) {
                        ServiceProcess.sleep(20);
                    }
                }
            }, "feed-follower");
            thread.setDaemon(true);
            thread.start();
        }

        boolean seenAll(Set<String> orders) {
            return seen.keySet().containsAll(orders);
        }

        long seenAt(String orderId) {
            return seen.get(orderId);
        }

        void stop() {
            running = false;
        }
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void awaitTrue(BooleanSupplier condition, Duration bound, String what) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what + " (not within " + bound + ")");
            ServiceProcess.sleep(20);
        }
    }
}
