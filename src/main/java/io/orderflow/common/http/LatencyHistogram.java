package io.orderflow.common.http;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Arrays;

/**
 * HTTP server latency as Prometheus histogram buckets ({@code http_server_requests_seconds_bucket}), so p50 and p99
 * can be computed across replicas (a per-replica summary cannot be aggregated). The boundaries are the latency SLO's
 * (k8s/monitoring: 99% of transitions within 250 ms) and a few around it; a fixed short list keeps the series few.
 */
@Singleton
public class LatencyHistogram implements MeterFilter {

    static final String HTTP_SERVER_REQUESTS = "http.server.requests";
    static final Duration[] BOUNDARIES = {Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
            Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
            Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5)};

    @Override
    public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
        if (!id.getName().equals(HTTP_SERVER_REQUESTS)) {
            return config;
        }
        return DistributionStatisticConfig.builder().serviceLevelObjectives(
                Arrays.stream(BOUNDARIES).mapToDouble(d -> d.toNanos()).toArray())
                .build().merge(config);
    }
}
