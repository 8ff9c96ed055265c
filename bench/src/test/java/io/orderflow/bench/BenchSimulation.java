package io.orderflow.bench;

import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.stopLoadGeneratorIf;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import java.time.Duration;

/**
 * What every orderflow simulation shares: the open-model schedule from {@link Load}, the server-side meter, the
 * stop at saturation for stairs runs, and for fixed-rate runs an assertion on failed requests (so run.sh and the
 * CI smoke see a broken run in Gatling's exit code).
 */
public abstract class BenchSimulation extends Simulation {

    protected final Load load = Load.fromSystemProperties();
    protected final ServerMeter meter;

    /**
     * @param requestsPerUser HTTP requests one virtual user sends
     * @param transitionsPerUser state changes one virtual user causes
     */
    protected BenchSimulation(double requestsPerUser, double transitionsPerUser) {
        this.meter = new ServerMeter(load, requestsPerUser, transitionsPerUser);
    }

    /**
     * First step of every user: tells the meter the schedule has begun and, once the meter has seen a level fall
     * behind, starts no more users.
     */
    protected ChainBuilder stopWhenSaturated() {
        return exec(session -> {
            meter.arrived();
            return session;
        }).exec(stopLoadGeneratorIf("saturated: the service fell behind the arrival rate",
                session -> meter.saturated()));
    }

    protected void run(ScenarioBuilder scenario) {
        SetUp setUp = setUp(scenario.injectOpen(load.injection()))
                .protocols(BenchConfig.protocol())
                .maxDuration(Duration.ofSeconds((long) load.seconds() + 60));
        if (!load.isStairs()) {
            // past saturation failures are expected (that is what a stairs run looks for); below it they are not
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
