package io.orderflow.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads the service's own counters ({@code /q/metrics}) once a second while a simulation runs, and turns them
 * into per-level rates: requests and transitions the service actually completed, which layer answered the
 * duplicates, SQL statements sent, CPU the service used. Server-side counts are the ground truth for "achieved":
 * Gatling only knows what its users saw.
 *
 * <p>In a stairs run, a level whose served request rate falls below {@value #KEEP_UP} of the offered one (or that
 * answers more than 1% 5xx) falls behind; after {@value #LEVELS_BEHIND} such levels in a row the simulation stops
 * injecting, so the run overshoots capacity by two levels at most instead of piling up a backlog that would take
 * minutes to drain.
 */
public final class ServerMeter {

    /** Achieved/offered below this: the service no longer keeps up with the arrival rate. */
    static final double KEEP_UP = 0.85;
    /** Share of 5xx answers above which a level counts as failing. */
    static final double MAX_5XX = 0.01;
    /** Consecutive levels that fall behind before a stairs run stops. */
    static final int LEVELS_BEHIND = 2;

    /** Counters read from /q/metrics (monotonic), under short names. */
    static final List<String> COUNTERS = List.of("http", "http_5xx", "applied", "duplicate", "illegal",
            "replay_replica", "replay_redis", "replay_db", "in_flight", "statements", "redis_fallbacks", "cpu_ns", "machine_jiffies",
            "machine_busy_jiffies");

    public record Sample(double seconds, Map<String, Double> values) {
        double get(String name) {
            return values.getOrDefault(name, 0.0);
        }
    }

    /** What the service did during one level's measuring window (rates per second). */
    public record LevelFigures(Load.Level level, double[] window, double offeredRequests, double offeredTransitions,
            Map<String, Double> rates, String verdict) {

        double rate(String name) {
            return rates.getOrDefault(name, 0.0);
        }

        double achievedRequests() {
            return rate("http");
        }
    }

    private final Load load;
    private final double requestsPerUser;
    private final double transitionsPerUser;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Sample> samples = new ArrayList<>();
    private final List<LevelFigures> judged = new ArrayList<>();
    private final AtomicBoolean saturated = new AtomicBoolean();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "server-meter");
        thread.setDaemon(true);
        return thread;
    });
    private long startNanos;
    private int behind;
    private int failedScrapes;
    /** When injection started: Gatling starts injecting a moment (seconds, on a busy machine) after before(). */
    private final AtomicLong originNanos = new AtomicLong();

    /**
     * @param requestsPerUser HTTP requests one user sends (5 for a lifecycle, 25 for a duplicate storm)
     * @param transitionsPerUser state changes one user causes (4 for a lifecycle)
     */
    public ServerMeter(Load load, double requestsPerUser, double transitionsPerUser) {
        this.load = load;
        this.requestsPerUser = requestsPerUser;
        this.transitionsPerUser = transitionsPerUser;
    }

    /** Call from the simulation's before(): injection starts right after it returns. */
    public void start() {
        startNanos = System.nanoTime();
        sample();
        timer.scheduleAtFixedRate(this::tick, 1000, 1000, TimeUnit.MILLISECONDS);
    }

    public boolean saturated() {
        return saturated.get();
    }

    /** Called once, by the simulation's clock user, when injection starts: time zero of the schedule. */
    public void injectionStarted() {
        if (originNanos.get() == 0) {
            originNanos.compareAndSet(0, System.nanoTime());
        }
    }

    /** Seconds from meter start to the start of injection (0 until it has started). */
    private double origin() {
        long origin = originNanos.get();
        return origin == 0 ? 0 : (origin - startNanos) / 1e9;
    }

    /** Call from after(): takes a last sample and writes {@code <label>-samples.tsv} and {@code -levels.tsv}. */
    public synchronized void stop() {
        timer.shutdownNow();
        sample();
        for (Load.Level level : load.levels()) {
            if (judged.stream().noneMatch(f -> f.level().index() == level.index()) && covered(level)) {
                judged.add(judge(level));
            }
        }
        write();
    }

    private void tick() {
        try {
            synchronized (this) {
                sample();
                if (originNanos.get() == 0) {
                    return;
                }
                double now = elapsed() - origin();
                for (Load.Level level : load.levels()) {
                    boolean done = judged.stream().anyMatch(f -> f.level().index() == level.index());
                    if (!done && now >= level.end() + 0.5 && covered(level)) {
                        LevelFigures figures = judge(level);
                        judged.add(figures);
                        // one bad level can be a hiccup of the shared machine; two in a row are saturation
                        behind = figures.verdict().equals("keeps up") ? 0 : behind + 1;
                        if (load.isStairs() && behind >= LEVELS_BEHIND) {
                            saturated.set(true);
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            // a failed scrape loses one sample, never the run
            System.err.println("server-meter: " + e);
        }
    }

    private double elapsed() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private void sample() {
        double at = elapsed();
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(BenchConfig.MANAGEMENT_URL + "/q/metrics"))
                    .timeout(Duration.ofSeconds(2)).GET().build();
            String body = client.send(request, HttpResponse.BodyHandlers.ofString()).body();
            Map<String, Double> values = parse(body);
            values.putAll(machineCpu());
            samples.add(new Sample(at, values));
            failedScrapes = 0;
        } catch (IOException e) {
            System.err.println("server-meter: scrape failed: " + e);
            // a service that stops answering has died (or is hopelessly behind): a stairs run ends here
            if (++failedScrapes >= 3 && load.isStairs()) {
                saturated.set(true);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * True when the samples cover most of the level's measuring window. The last level of a run may end a little
     * before its nominal end (the run stops once the last user is done): it is measured up to the last sample.
     */
    private boolean covered(Load.Level level) {
        if (originNanos.get() == 0 || samples.isEmpty()) {
            return false;
        }
        double[] window = window(level);
        double last = samples.get(samples.size() - 1).seconds() - origin();
        // the last sample is the one taken when the run ended: a service that died stops the samples earlier
        return last >= window[0] + (window[1] - window[0]) / 2;
    }

    /**
     * The part of a level that is measured: its first seconds are skipped (the previous, lower rate's requests are
     * still finishing and the new rate's queue is still forming).
     */
    static double[] window(Load.Level level) {
        double length = level.end() - level.start();
        double skip = Math.min(2.0, length / 4);
        return new double[] {level.start() + skip, level.end()};
    }

    LevelFigures judge(Load.Level level) {
        double[] window = window(level);
        double shift = origin();
        if (!samples.isEmpty()) {
            window[1] = Math.min(window[1], samples.get(samples.size() - 1).seconds() - shift);
        }
        double span = window[1] - window[0];
        Map<String, Double> rates = new LinkedHashMap<>();
        for (String counter : COUNTERS) {
            rates.put(counter, (at(shift + window[1], counter) - at(shift + window[0], counter)) / span);
        }
        double offeredRequests = level.usersPerSec() * requestsPerUser;
        String verdict = verdict(offeredRequests, rates.get("http"), rates.get("http_5xx"));
        return new LevelFigures(level, window, offeredRequests, level.usersPerSec() * transitionsPerUser, rates,
                verdict);
    }

    static String verdict(double offeredRequests, double achievedRequests, double errors) {
        if (achievedRequests > 0 && errors / achievedRequests > MAX_5XX) {
            return "5xx";
        }
        return achievedRequests < KEEP_UP * offeredRequests ? "falls behind" : "keeps up";
    }

    /** A counter's value at {@code t} seconds after the meter started, linearly interpolated between the samples around it. */
    double at(double t, String counter) {
        Sample before = null;
        for (Sample s : samples) {
            if (s.seconds() <= t) {
                before = s;
            } else {
                if (before == null) {
                    return s.get(counter);
                }
                double f = (t - before.seconds()) / (s.seconds() - before.seconds());
                return before.get(counter) + f * (s.get(counter) - before.get(counter));
            }
        }
        return before == null ? 0 : before.get(counter);
    }

    /** Only for tests. */
    void addSample(double seconds, Map<String, Double> values) {
        samples.add(new Sample(seconds, values));
    }

    /**
     * Sums the Prometheus lines the bench needs. HTTP counts leave out /q/* (the meter's own scrapes, health
     * checks) so that "achieved" is the application's traffic only.
     */
    static Map<String, Double> parse(String prometheus) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String counter : COUNTERS) {
            if (!counter.startsWith("machine")) {
                out.put(counter, 0.0);
            }
        }
        for (String line : prometheus.split("\n")) {
            if (line.isEmpty() || line.charAt(0) == '#') {
                continue;
            }
            int space = line.lastIndexOf(' ');
            if (space < 0) {
                continue;
            }
            double value;
            try {
                value = Double.parseDouble(line.substring(space + 1).trim());
            } catch (NumberFormatException e) {
                continue;
            }
            String series = line.substring(0, space);
            if (series.startsWith("http_server_requests_seconds_count{") && !series.contains("uri=\"/q/")) {
                add(out, "http", value);
                if (series.contains("status=\"5")) {
                    add(out, "http_5xx", value);
                }
            } else if (series.startsWith("orderflow_transitions_total{")) {
                if (series.contains("outcome=\"applied\"")) {
                    add(out, "applied", value);
                } else if (series.contains("outcome=\"duplicate\"")) {
                    add(out, "duplicate", value);
                } else if (series.contains("outcome=\"illegal\"")) {
                    add(out, "illegal", value);
                }
            } else if (series.equals("orderflow_idempotency_replays_total{layer=\"replica\"}")) {
                add(out, "replay_replica", value);
            } else if (series.equals("orderflow_idempotency_replays_total{layer=\"redis\"}")) {
                add(out, "replay_redis", value);
            } else if (series.equals("orderflow_idempotency_replays_total{layer=\"database\"}")) {
                add(out, "replay_db", value);
            } else if (series.equals("orderflow_idempotency_in_flight_total")) {
                add(out, "in_flight", value);
            } else if (series.equals("orderflow_db_statements_total")) {
                add(out, "statements", value);
            } else if (series.equals("orderflow_idempotency_redis_fallbacks_total")) {
                add(out, "redis_fallbacks", value);
            } else if (series.equals("process_cpu_time_ns_total")) {
                add(out, "cpu_ns", value);
            }
        }
        return out;
    }

    private static void add(Map<String, Double> out, String name, double value) {
        out.merge(name, value, Double::sum);
    }

    /** The whole machine's CPU (every process: service, PostgreSQL, Redis, Gatling, and other people's work). */
    private static Map<String, Double> machineCpu() {
        Map<String, Double> out = new LinkedHashMap<>();
        try {
            String cpu = Files.readAllLines(Path.of("/proc/stat")).get(0);
            String[] f = cpu.trim().split("\\s+");
            double total = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                total += Double.parseDouble(f[i]);
            }
            double idle = Double.parseDouble(f[4]) + Double.parseDouble(f[5]);
            out.put("machine_jiffies", total);
            out.put("machine_busy_jiffies", total - idle);
        } catch (IOException | RuntimeException e) {
            // not Linux: the figure is simply absent
        }
        return out;
    }

    private void write() {
        try {
            Files.createDirectories(BenchConfig.RESULTS);
            // times in both files: seconds from the first user's arrival (negative: before it)
            StringBuilder tsv = new StringBuilder("seconds\t" + String.join("\t", COUNTERS) + "\n");
            for (Sample s : samples) {
                tsv.append(String.format(Locale.ROOT, "%.3f", s.seconds() - origin()));
                for (String counter : COUNTERS) {
                    tsv.append('\t').append(String.format(Locale.ROOT, "%.0f", s.get(counter)));
                }
                tsv.append('\n');
            }
            Files.writeString(BenchConfig.RESULTS.resolve(BenchConfig.LABEL + "-samples.tsv"), tsv);

            StringBuilder levels = new StringBuilder("level\tusers_per_s\tfrom_s\tto_s\toffered_req_per_s"
                    + "\toffered_transitions_per_s\tverdict");
            for (String counter : COUNTERS) {
                levels.append('\t').append(counter).append("_per_s");
            }
            levels.append('\n');
            judged.sort((a, b) -> Integer.compare(a.level().index(), b.level().index()));
            for (LevelFigures f : judged) {
                double[] window = f.window();
                levels.append(String.format(Locale.ROOT, "%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%s", f.level().index(),
                        f.level().usersPerSec(), window[0], window[1], f.offeredRequests(), f.offeredTransitions(),
                        f.verdict()));
                for (String counter : COUNTERS) {
                    levels.append(String.format(Locale.ROOT, "\t%.2f", f.rate(counter)));
                }
                levels.append('\n');
            }
            Files.writeString(BenchConfig.RESULTS.resolve(BenchConfig.LABEL + "-levels.tsv"), levels);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
