package io.orderflow.bench;

import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.nothingFor;

import io.gatling.javaapi.core.OpenInjectionStep;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The open-model arrival schedule of one run. Users (one per order, or per request in the read mix) arrive at a
 * rate that does not depend on how fast the service answers, so a slow response cannot hold back the next arrival
 * (no coordinated omission): a service that falls behind shows it as queueing latency and as a served rate below
 * the offered one.
 *
 * <ul>
 * <li>A warm-up of {@code bench.warmupSeconds} at the first level's rate, sent by a scenario of its own whose
 * requests are named "warm-up: ..." so that they stay out of the measured figures. It exists for the load
 * generator as much as for the service: every run starts a fresh Gatling JVM, whose JIT would otherwise compete
 * with the service for the 2 cores during the first measured seconds.</li>
 * <li>{@code fixed}: one rate for {@code bench.seconds}.</li>
 * <li>{@code stairs}: {@code bench.levels} levels of {@code bench.levelSeconds} each, starting at
 * {@code bench.rate} and multiplied by {@code bench.factor} each level; the run ends once the service has fallen
 * behind (see {@link ServerMeter}).</li>
 * </ul>
 * Arrivals within a level are randomized (Poisson-like) rather than evenly spaced, as independent clients are.
 * Level times are seconds from the start of injection, warm-up included.
 */
public final class Load {

    /** One constant-rate stretch of the measured schedule. */
    public record Level(int index, double usersPerSec, double start, double end) {
    }

    private final String mode;
    private final double warmupSeconds;
    private final List<Level> levels;

    public Load(String mode, double warmupSeconds, List<Level> levels) {
        this.mode = mode;
        this.warmupSeconds = warmupSeconds;
        this.levels = List.copyOf(levels);
    }

    /** The schedule described by the {@code bench.*} system properties. */
    public static Load fromSystemProperties() {
        String mode = BenchConfig.property("bench.load", "fixed").toLowerCase(Locale.ROOT);
        double rate = BenchConfig.number("bench.rate", 10);
        double warmup = BenchConfig.number("bench.warmupSeconds", 0);
        return switch (mode) {
            case "fixed" -> fixed(rate, BenchConfig.number("bench.seconds", 30), warmup);
            case "stairs" -> stairs(rate, BenchConfig.number("bench.factor", 1.3),
                    (int) BenchConfig.number("bench.levels", 6), BenchConfig.number("bench.levelSeconds", 10),
                    warmup);
            default -> throw new IllegalArgumentException("bench.load must be fixed or stairs, not " + mode);
        };
    }

    public static Load fixed(double usersPerSec, double seconds, double warmupSeconds) {
        return new Load("fixed", warmupSeconds,
                List.of(new Level(0, usersPerSec, warmupSeconds, warmupSeconds + seconds)));
    }

    public static Load stairs(double start, double factor, int count, double levelSeconds, double warmupSeconds) {
        List<Level> levels = new ArrayList<>();
        double rate = start;
        for (int i = 0; i < count; i++) {
            levels.add(new Level(i, round(rate), warmupSeconds + i * levelSeconds,
                    warmupSeconds + (i + 1) * levelSeconds));
            rate *= factor;
        }
        return new Load("stairs", warmupSeconds, levels);
    }

    public boolean isStairs() {
        return mode.equals("stairs");
    }

    public List<Level> levels() {
        return levels;
    }

    public double warmupSeconds() {
        return warmupSeconds;
    }

    public double seconds() {
        return levels.get(levels.size() - 1).end();
    }

    /** The measured scenario's injection: nothing during the warm-up, then the levels. */
    public OpenInjectionStep[] injection() {
        List<OpenInjectionStep> steps = new ArrayList<>();
        if (warmupSeconds > 0) {
            steps.add(nothingFor(Duration.ofMillis(Math.round(warmupSeconds * 1000))));
        }
        for (Level level : levels) {
            steps.add(constantUsersPerSec(level.usersPerSec())
                    .during(Duration.ofMillis(Math.round((level.end() - level.start()) * 1000)))
                    .randomized());
        }
        return steps.toArray(OpenInjectionStep[]::new);
    }

    /** The warm-up scenario's injection: the first level's rate for the warm-up's length. */
    public OpenInjectionStep[] warmupInjection() {
        return new OpenInjectionStep[] {constantUsersPerSec(levels.get(0).usersPerSec())
                .during(Duration.ofMillis(Math.round(warmupSeconds * 1000))).randomized()};
    }

    private static double round(double rate) {
        return Math.round(rate * 10) / 10.0;
    }
}
