package io.orderflow.payment.simulator;

import io.orderflow.support.Contract;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * Plays a payment provider against a running orderflow: delivers each payment's success notification on the
 * provider's own retry schedule with time compressed, "loses" a share of the acks (the service processed the
 * delivery but the provider did not hear it, so it keeps re-sending), fires some deliveries twice at once, and sends
 * a few late failures out of order. Each delivery is signed anew, as providers do. Returns every answer, delivery
 * round by delivery round, per event; the caller checks the invariants against the database.
 */
public final class ProviderRetrySimulator {

    /** WeChat Pay's notification retry intervals after the first delivery (15 in all, ~24 h). */
    public static final List<Duration> WECHAT_SCHEDULE = List.of(Duration.ofSeconds(15), Duration.ofSeconds(15),
            Duration.ofSeconds(30), Duration.ofMinutes(3), Duration.ofMinutes(10), Duration.ofMinutes(20),
            Duration.ofMinutes(30), Duration.ofMinutes(30), Duration.ofMinutes(30), Duration.ofMinutes(60),
            Duration.ofHours(3), Duration.ofHours(3), Duration.ofHours(3), Duration.ofHours(6), Duration.ofHours(6));

    /**
     * Stripe's, in live mode: "exponential backoff for up to three days" (it publishes no intervals). Modelled as
     * doubling from one minute: 12 retries, the last about 68 hours after the first delivery.
     */
    public static final List<Duration> STRIPE_SCHEDULE = IntStream.range(0, 12)
            .mapToObj(i -> Duration.ofMinutes(1L << i)).toList();

    /** How one provider writes, signs and re-sends its notifications. */
    public interface Provider {

        /** The provider's name in {@code /payments/{name}/callbacks}. */
        String name();

        /** Intervals between deliveries of one notification, after the first. */
        List<Duration> schedule();

        /** A new event id in the provider's own format. */
        String newEventId();

        /** The notification that the payment {@code charge} succeeded. */
        String success(String eventId, Charge charge);

        /** A late notification that the same payment failed, or null when the provider sends none. */
        String lateFailure(String eventId, Charge charge);

        /** The headers of one delivery of {@code body}, signed at {@code epochSecond}. */
        Map<String, String> headers(String body, long epochSecond);
    }

    /**
     * @param baseUrl the service, e.g. http://localhost:8080
     * @param compressedDay how long 24 hours of the provider's schedule take here
     * @param ackDropRate share of 2xx answers the provider "does not hear" (1.0: every re-delivery happens)
     * @param concurrentRate share of deliveries sent twice at the same moment
     * @param staleRate share of payments that also get a late, out-of-order failure (where the provider sends one)
     */
    public record Settings(String baseUrl, Duration compressedDay, double ackDropRate, double concurrentRate,
            double staleRate, long seed) {
    }

    /** One payment the provider took: the order, the provider's reference of its attempt, amount and transaction. */
    public record Charge(String orderId, String reference, long amount, String currency, String txnId) {
    }

    /**
     * What the provider saw.
     *
     * @param rounds per event, the answers of each delivery round (two answers when the round was sent twice)
     */
    public record Report(String provider, int payments, int deliveries, Map<Integer, Integer> statuses,
            int acksDropped, Map<String, List<List<Integer>>> rounds, Duration took, List<String> undocumented) {

        /** Answers that were not 2xx. */
        public int non2xx() {
            return statuses.entrySet().stream().filter(e -> e.getKey() / 100 != 2).mapToInt(Map.Entry::getValue)
                    .sum();
        }

        /** 503s (in flight: another delivery of the event was being decided) that a later all-2xx round followed. */
        public int retried503() {
            int n = 0;
            for (List<List<Integer>> event : rounds.values()) {
                for (int r = 0; r < event.size(); r++) {
                    long busy = event.get(r).stream().filter(s -> s == 503).count();
                    if (busy > 0 && laterAll2xx(event, r)) {
                        n += (int) busy;
                    }
                }
            }
            return n;
        }

        /**
         * Events that got a non-2xx answer other than a 503 followed by an all-2xx round: what a provider would go
         * on re-sending for days, or a final refusal of an event the service had decided.
         */
        public List<String> unacknowledged() {
            List<String> bad = new ArrayList<>();
            rounds.forEach((event, answers) -> {
                for (int r = 0; r < answers.size(); r++) {
                    for (int status : answers.get(r)) {
                        if (status / 100 != 2 && (status != 503 || !laterAll2xx(answers, r))) {
                            bad.add(event + " " + answers);
                            return;
                        }
                    }
                }
            });
            return bad;
        }

        private static boolean laterAll2xx(List<List<Integer>> answers, int round) {
            return answers.subList(round + 1, answers.size()).stream()
                    .anyMatch(later -> later.stream().allMatch(s -> s / 100 == 2));
        }

        public String summary() {
            return String.format("provider simulation (%s): %d payments, %d events, %d deliveries in %d ms; answers"
                    + " %s; %d non-2xx (%d in-flight 503s re-sent and then acknowledged); %d acks dropped",
                    provider, payments, rounds.size(), deliveries, took.toMillis(), statuses, non2xx(), retried503(),
                    acksDropped);
        }
    }

    private final Settings settings;
    private final Provider provider;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Random random;
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(4);
    private final Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    /** Exchanges that were not as openapi.yaml says, with the contract's verdict. */
    private final List<String> undocumented = new CopyOnWriteArrayList<>();
    private final Map<String, List<List<Integer>>> rounds = new ConcurrentHashMap<>();
    private final AtomicInteger deliveries = new AtomicInteger();
    private final AtomicInteger acksDropped = new AtomicInteger();

    public ProviderRetrySimulator(Settings settings, Provider provider) {
        this.settings = settings;
        this.provider = provider;
        this.random = new Random(settings.seed());
    }

    public Report run(List<Charge> charges) {
        Instant start = Instant.now();
        double scale = settings.compressedDay().toNanos() / (double) Duration.ofHours(24).toNanos();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (Charge charge : charges) {
            String eventId = provider.newEventId();
            all.add(deliverUntilHeard(eventId, provider.success(eventId, charge), scale, 0, 0));
            if (random.nextDouble() < settings.staleRate()) {
                String staleId = provider.newEventId();
                String stale = provider.lateFailure(staleId, charge);
                if (stale != null) {
                    all.add(deliverUntilHeard(staleId, stale, scale, 0, Duration.ofMinutes(5).toNanos()));
                }
            }
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
        timer.shutdownNow();
        Map<Integer, Integer> histogram = new TreeMap<>();
        statuses.forEach((status, n) -> histogram.put(status, n.get()));
        return new Report(provider.name(), charges.size(), deliveries.get(), histogram, acksDropped.get(),
                Map.copyOf(rounds), Duration.between(start, Instant.now()), List.copyOf(undocumented));
    }

    /** Delivers on the schedule until every copy of a round is answered 2xx and heard, or the schedule ends. */
    private CompletableFuture<Void> deliverUntilHeard(String eventId, String body, double scale, int attempt,
            long delayNanos) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        List<List<Integer>> answers = rounds.computeIfAbsent(eventId, e -> Collections.synchronizedList(
                new ArrayList<>()));
        timer.schedule(() -> {
            boolean twice;
            boolean dropAck;
            synchronized (random) {
                twice = random.nextDouble() < settings.concurrentRate();
                dropAck = random.nextDouble() < settings.ackDropRate();
            }
            List<CompletableFuture<Integer>> copies = new ArrayList<>(List.of(send(body)));
            if (twice) {
                copies.add(send(body));
            }
            CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new)).handle((ignored, failure) -> {
                List<Integer> round = copies.stream().map(CompletableFuture::join).toList();
                answers.add(round);
                boolean all2xx = round.stream().allMatch(s -> s / 100 == 2);
                if (all2xx && dropAck) {
                    acksDropped.incrementAndGet();
                }
                boolean finalRefusal = round.stream().anyMatch(s -> s / 100 == 4);
                if ((all2xx && !dropAck) || finalRefusal || attempt >= provider.schedule().size()) {
                    done.complete(null);
                } else {
                    deliverUntilHeard(eventId, body, scale, attempt + 1,
                            provider.schedule().get(attempt).toNanos())
                            .whenComplete((v, f) -> done.complete(null));
                }
                return null;
            });
        }, (long) (delayNanos * scale), TimeUnit.NANOSECONDS);
        return done;
    }

    private CompletableFuture<Integer> send(String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        HttpRequest.Builder request = HttpRequest.newBuilder(
                URI.create(settings.baseUrl() + "/payments/" + provider.name() + "/callbacks"))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes));
        provider.headers(body, Instant.now().getEpochSecond()).forEach(request::header);
        deliveries.incrementAndGet();
        HttpRequest sent = request.build();
        return http.sendAsync(sent, HttpResponse.BodyHandlers.ofByteArray())
                .handle((response, failure) -> {
                    if (response != null) {
                        try {
                            Contract.asDocumented(sent, body, response);
                        } catch (AssertionError notAsDocumented) {
                            undocumented.add(notAsDocumented.getMessage());
                        }
                    }
                    int status = failure == null ? response.statusCode() : 599; // no answer at all
                    statuses.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
                    return status;
                });
    }
}
