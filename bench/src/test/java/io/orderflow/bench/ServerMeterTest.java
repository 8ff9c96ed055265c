package io.orderflow.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The meter decides what "achieved" and "saturated" mean, so its arithmetic is pinned down here. */
class ServerMeterTest {

    private static final String METRICS = """
            # TYPE http_server_requests_seconds counter
            http_server_requests_seconds_count{method="POST",outcome="SUCCESS",status="201",uri="/orders"} 10.0
            http_server_requests_seconds_count{method="POST",outcome="SUCCESS",status="200",uri="/orders/{id}/ship"} 5.0
            http_server_requests_seconds_count{method="POST",outcome="SERVER_ERROR",status="503",uri="/orders/{id}/pay"} 2.0
            http_server_requests_seconds_count{method="GET",outcome="SUCCESS",status="200",uri="/q/metrics"} 99.0
            orderflow_transitions_total{event="SHIP",outcome="applied"} 4.0
            orderflow_transitions_total{event="PAY",outcome="applied"} 3.0
            orderflow_transitions_total{event="SHIP",outcome="duplicate"} 1.0
            orderflow_idempotency_replays_total{layer="replica"} 3.0
            orderflow_idempotency_replays_total{layer="redis"} 7.0
            orderflow_idempotency_replays_total{layer="database"} 2.0
            orderflow_db_statements_total 1.2E3
            process_cpu_time_ns_total 1.5E10
            """;

    @Test
    void sumsTheApplicationsTrafficAndLeavesOutTheMetersOwnScrapes() {
        Map<String, Double> values = ServerMeter.parse(METRICS);
        assertEquals(17.0, values.get("http"));
        assertEquals(2.0, values.get("http_5xx"));
        assertEquals(7.0, values.get("applied"));
        assertEquals(1.0, values.get("duplicate"));
        assertEquals(3.0, values.get("replay_replica"));
        assertEquals(7.0, values.get("replay_redis"));
        assertEquals(2.0, values.get("replay_db"));
        assertEquals(1200.0, values.get("statements"));
        assertEquals(1.5e10, values.get("cpu_ns"));
    }

    @Test
    void aLevelThatServesLessThanItIsOfferedFallsBehind() {
        assertEquals("keeps up", ServerMeter.verdict(100, 90, 0));
        assertEquals("falls behind", ServerMeter.verdict(100, 80, 0));
        assertEquals("5xx", ServerMeter.verdict(100, 100, 2));
    }

    @Test
    void ratesComeFromCountersInterpolatedAtTheWindowsEdges() {
        Load load = Load.fixed(10, 10, 0);
        ServerMeter meter = new ServerMeter(load, 5, 4);
        // 50 requests/s, sampled at uneven moments
        meter.addSample(0.0, Map.of("http", 0.0));
        meter.addSample(1.5, Map.of("http", 75.0));
        meter.addSample(6.0, Map.of("http", 300.0));
        meter.addSample(10.5, Map.of("http", 525.0));
        ServerMeter.LevelFigures figures = meter.judge(load.levels().get(0));
        assertEquals(50.0, figures.achievedRequests(), 1e-9);
        assertEquals(50.0, figures.offeredRequests(), 1e-9);
        assertEquals("keeps up", figures.verdict());
    }

    @Test
    void theFirstSecondsOfALevelAreNotMeasured() {
        double[] window = ServerMeter.window(new Load.Level(1, 10, 8, 16));
        assertEquals(10.0, window[0]);
        assertEquals(16.0, window[1]);
    }
}
