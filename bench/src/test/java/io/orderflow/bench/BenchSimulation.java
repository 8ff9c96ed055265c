package io.orderflow.bench;

import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.stopLoadGeneratorIf;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.PopulationBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What every orderflow simulation shares: the open-model schedule from {@link Load}, the server-side meter, the
 * stop at saturation for stairs runs, and for fixed-rate runs an assertion on failed requests (so run.sh and the
 * CI smoke see a broken run in Gatling's exit code).
 */
public abstract class BenchSimulation extends Simulation {

    /** Name prefix of the warm-up's requests (Gatling reports them apart from the measured ones). */
    static final String WARMUP = "warm-up: ";

    protected final Load load = Load.fromSystemProperties();
    protected final ServerMeter meter;

    /**
     * @param requestsPerUser HTTP requests one virtual user sends
     * @param transitionsPerUser state changes one virtual user causes
     */
    protected BenchSimulation(double requestsPerUser, double transitionsPerUser) {
        this.meter = new ServerMeter(load, requestsPerUser, transitionsPerUser);
    }

    /** First step of every user: once the meter has seen a level fall behind, no more users start. */
    protected ChainBuilder stopWhenSaturated() {
        return exec(stopLoadGeneratorIf("saturated: the service fell behind the arrival rate",
                session -> meter.saturated()));
    }

    /**
     * Sets the run up: the measured scenario, and (when {@code bench.warmupSeconds} is set) the same requests under
     * "warm-up: " names before it.
     *
     * @param chain the user's requests, given the prefix for their names
     */
    protected void run(String name, Function<String, ChainBuilder> chain) {
        ScenarioBuilder measured = scenario(name).exec(stopWhenSaturated()).exec(chain.apply(""));
        // A user that sends nothing and starts the instant injection does: time zero of the schedule for the meter
        // (the first real arrival is up to a random inter-arrival gap later; before() is seconds earlier).
        ScenarioBuilder clock = scenario("clock").exec(session -> {
            meter.injectionStarted();
            return session;
        });
        List<PopulationBuilder> populations = new ArrayList<>(List.of(measured.injectOpen(load.injection()),
                clock.injectOpen(atOnceUsers(1))));
        if (load.warmupSeconds() > 0) {
            populations.add(scenario(name + " (warm-up)").exec(chain.apply(WARMUP))
                    .injectOpen(load.warmupInjection()));
        }
        SetUp setUp = setUp(populations)
                .protocols(BenchConfig.protocol())
                .maxDuration(Duration.ofSeconds((long) load.seconds() + 60));
        if (!load.isStairs()) {
            // past saturation failures are expected (that is what a stairs run looks for); below it they are not
            // (warm-up requests count too: at a rate the service keeps up with they fail no more than the rest)
            setUp.assertions(global().failedRequests().percent().lt(BenchConfig.number("bench.maxKoPercent", 1.0)));
        }
    }

    @Override
    public void before() {
        meter.start();
    }

    @Override
    public void after() {
        meter.stop();
    }
}
