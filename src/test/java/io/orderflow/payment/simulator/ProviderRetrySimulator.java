package io.orderflow.payment.simulator;

import io.orderflow.payment.mockpay.SignatureVerifier;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plays a payment provider against a running orderflow: delivers each order's success notification on WeChat Pay's
 * retry schedule (15 deliveries over ~24 h) with time compressed, "loses" a share of the acks (the service processed
 * the delivery but the provider did not hear it, so it keeps re-sending), fires some deliveries twice at once, and
 * sends a few stale PAYMENT_FAILED events out of order. Returns what every delivery was answered; the caller checks
 * the invariants against the database.
 */
public final class ProviderRetrySimulator {

    /** WeChat Pay's notification retry intervals after the first delivery. */
    public static final List<Duration> WECHAT_SCHEDULE = List.of(Duration.ofSeconds(15), Duration.ofSeconds(15),
            Duration.ofSeconds(30), Duration.ofMinutes(3), Duration.ofMinutes(10), Duration.ofMinutes(20),
            Duration.ofMinutes(30), Duration.ofMinutes(30), Duration.ofMinutes(30), Duration.ofMinutes(60),
            Duration.ofHours(3), Duration.ofHours(3), Duration.ofHours(3), Duration.ofHours(6), Duration.ofHours(6));

    /**
     * @param baseUrl the service, e.g. http://localhost:8080
     * @param compressedDay how long the ~24 h schedule takes here
     * @param ackDropRate share of 2xx answers the provider "does not hear" (1.0: all 15 re-deliveries happen)
     * @param concurrentRate share of deliveries sent twice at the same moment
     * @param staleRate share of orders that also get a late, out-of-order PAYMENT_FAILED
     */
    public record Settings(String baseUrl, String provider, String secret, Duration compressedDay, double ackDropRate,
            double concurrentRate, double staleRate, long seed) {
    }

    /** One order the provider charged: the amount it reports and its transaction id. */
    public record Charge(String orderId, long amount, String currency, String txnId) {
    }

    public record Report(int orders, int deliveries, Map<Integer, Integer> statuses, int acksDropped,
            Map<String, Integer> finalStatusByEvent, Duration took) {

        public String summary() {
            return String.format("provider simulation: %d orders, %d deliveries in %d ms; answers %s; %d acks dropped;"
                    + " final answer per event %s", orders, deliveries, took.toMillis(), statuses, acksDropped,
                    finalStatusByEvent);
        }
    }

    private final Settings settings;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Random random;
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(4);
    private final Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    private final Map<String, Integer> lastAnswer = new ConcurrentHashMap<>();
    private final AtomicInteger deliveries = new AtomicInteger();
    private final AtomicInteger acksDropped = new AtomicInteger();

    public ProviderRetrySimulator(Settings settings) {
        this.settings = settings;
        this.random = new Random(settings.seed());
    }

    public Report run(List<Charge> charges) {
        Instant start = Instant.now();
        double scale = settings.compressedDay().toNanos() / (double) Duration.ofHours(24).toNanos();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (Charge charge : charges) {
            String eventId = "evt_" + UUID.randomUUID();
            String body = body(eventId, "PAYMENT_SUCCEEDED", charge);
            all.add(deliverUntilHeard(eventId, body, scale, 0, 0));
            if (random.nextDouble() < settings.staleRate()) {
                String staleId = "evt_" + UUID.randomUUID();
                String stale = body(staleId, "PAYMENT_FAILED", charge);
                all.add(deliverUntilHeard(staleId, stale, scale, 0, Duration.ofMinutes(5).toNanos()));
            }
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        timer.shutdownNow();
        Map<Integer, Integer> histogram = new TreeMap<>();
        statuses.forEach((status, n) -> histogram.put(status, n.get()));
        Map<String, Integer> finals = new TreeMap<>();
        lastAnswer.values().forEach(s -> finals.merge(String.valueOf(s), 1, Integer::sum));
        return new Report(charges.size(), deliveries.get(), histogram, acksDropped.get(), finals,
                Duration.between(start, Instant.now()));
    }

    /** Delivers on the schedule until a 2xx is heard (or a final 4xx), up to 1 + 15 deliveries. */
    private CompletableFuture<Void> deliverUntilHeard(String eventId, String body, double scale, int attempt,
            long delayNanos) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        long scaled = (long) (delayNanos * scale);
        timer.schedule(() -> {
            boolean twice;
            boolean dropAck;
            synchronized (random) {
                twice = random.nextDouble() < settings.concurrentRate();
                dropAck = random.nextDouble() < settings.ackDropRate();
            }
            CompletableFuture<Integer> answer = send(body);
            if (twice) {
                answer = answer.thenCombine(send(body), Math::max);
            }
            answer.whenComplete((status, failure) -> {
                int code = failure == null ? status : 599;
                lastAnswer.put(eventId, code);
                boolean heard = code >= 200 && code < 300 && !dropAck;
                boolean finalRefusal = code >= 400 && code < 500;
                if (code >= 200 && code < 300 && dropAck) {
                    acksDropped.incrementAndGet();
                }
                if (heard || finalRefusal || attempt >= WECHAT_SCHEDULE.size()) {
                    done.complete(null);
                } else {
                    deliverUntilHeard(eventId, body, scale, attempt + 1, WECHAT_SCHEDULE.get(attempt).toNanos())
                            .whenComplete((v, f) -> done.complete(null));
                }
            });
        }, scaled, TimeUnit.NANOSECONDS);
        return done;
    }

    private CompletableFuture<Integer> send(String body) {
        long t = Instant.now().getEpochSecond();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String signature = "t=" + t + ",v1="
                + HexFormat.of().formatHex(SignatureVerifier.sign(settings.secret(), t, bytes));
        HttpRequest request = HttpRequest.newBuilder(
                URI.create(settings.baseUrl() + "/payments/" + settings.provider() + "/callbacks"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header(SignatureVerifier.HEADER, signature)
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes)).build();
        deliveries.incrementAndGet();
        return http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).thenApply(response -> {
            statuses.computeIfAbsent(response.statusCode(), s -> new AtomicInteger()).incrementAndGet();
            return response.statusCode();
        });
    }

    private static String body(String eventId, String type, Charge charge) {
        return "{\"eventId\":\"" + eventId + "\",\"type\":\"" + type + "\",\"orderId\":\"" + charge.orderId()
                + "\",\"amount\":" + charge.amount() + ",\"currency\":\"" + charge.currency()
                + "\",\"providerTxnId\":\"" + charge.txnId() + "\",\"occurredAt\":\"" + Instant.now() + "\"}";
    }
}
