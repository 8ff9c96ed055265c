package io.orderflow.bench;

import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;

import io.gatling.javaapi.core.OpenInjectionStep;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The open-model arrival schedule of one run. Users (one per order, or per request in the read mix) arrive at a
 * rate that does not depend on how fast the service answers, so a slow response cannot hold back the next arrival
 * (no coordinated omission): a service that falls behind shows it as queueing latency and as an achieved rate
 * below the offered one.
 *
 * <ul>
 * <li>{@code fixed}: one rate for {@code bench.seconds}.</li>
 * <li>{@code stairs}: {@code bench.levels} levels of {@code bench.levelSeconds} each, starting at
 * {@code bench.rate} and multiplied by {@code bench.factor} each level; a level that the service cannot keep up
 * with ends the run (see {@link ServerMeter}).</li>
 * </ul>
 * Arrivals within a level are randomized (Poisson-like) rather than evenly spaced, as independent clients are.
 */
public final class Load {

    /** One constant-rate stretch of the schedule; times in seconds from the start of injection. */
    public record Level(int index, double usersPerSec, double start, double end) {
    }

    private final String mode;
    private final List<Level> levels;

    public Load(String mode, List<Level> levels) {
        this.mode = mode;
        this.levels = List.copyOf(levels);
    }

    /** The schedule described by the {@code bench.*} system properties. */
    public static Load fromSystemProperties() {
        String mode = BenchConfig.property("bench.load", "fixed").toLowerCase(Locale.ROOT);
        double rate = BenchConfig.number("bench.rate", 10);
        return switch (mode) {
            case "fixed" -> fixed(rate, BenchConfig.number("bench.seconds", 30));
            case "stairs" -> stairs(rate, BenchConfig.number("bench.factor", 1.3),
                    (int) BenchConfig.number("bench.levels", 6), BenchConfig.number("bench.levelSeconds", 10));
            default -> throw new IllegalArgumentException("bench.load must be fixed or stairs, not " + mode);
        };
    }

    public static Load fixed(double usersPerSec, double seconds) {
        return new Load("fixed", List.of(new Level(0, usersPerSec, 0, seconds)));
    }

    public static Load stairs(double start, double factor, int count, double levelSeconds) {
        List<Level> levels = new ArrayList<>();
        double rate = start;
        for (int i = 0; i < count; i++) {
            levels.add(new Level(i, round(rate), i * levelSeconds, (i + 1) * levelSeconds));
            rate *= factor;
        }
        return new Load("stairs", levels);
    }

    public boolean isStairs() {
        return mode.equals("stairs");
    }

    public List<Level> levels() {
        return levels;
    }

    public double seconds() {
        return levels.get(levels.size() - 1).end();
    }

    public OpenInjectionStep[] injection() {
        return levels.stream()
                .map(level -> (OpenInjectionStep) constantUsersPerSec(level.usersPerSec())
                        .during(Math.round(level.end() - level.start()))
                        .randomized())
                .toArray(OpenInjectionStep[]::new);
    }

    private static double round(double rate) {
        return Math.round(rate * 10) / 10.0;
    }
}
