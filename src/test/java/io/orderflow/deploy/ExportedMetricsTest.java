package io.orderflow.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.Management;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every metric of the service's own that an alert rule or a dashboard panel queries is exported, from startup: a
 * rule on a series that does not exist yet is silently never true. The scrape is the one Prometheus makes.
 */
@QuarkusTest
class ExportedMetricsTest {

    @Test
    void shouldExportEveryNameTheAlertsAndTheDashboardQuery() throws Exception {
        // one API request, so that the HTTP histogram has a series (none before the first request; /q/* is not counted)
        Auth.operator().get("/state-machine").then().statusCode(200);
        Set<String> exported = exportedNames(Management.metrics());
        Set<String> missing = new TreeSet<>(AlertRulesTest.queriedNames());
        missing.removeAll(exported);
        assertEquals(Set.of(), missing, "queried by k8s/monitoring but not exported");
    }

    @Test
    void shouldExportHttpLatencyAsBucketsWithTheSloBoundary() {
        Auth.operator().get("/state-machine").then().statusCode(200);
        List<String> buckets = Management.metrics().lines()
                .filter(line -> line.startsWith("http_server_requests_seconds_bucket{")).toList();
        assertTrue(buckets.stream().anyMatch(line -> line.contains("le=\"0.25\"")),
                "the 250 ms SLO boundary is a bucket: " + buckets.stream().limit(3).toList());
    }

    @Test
    void shouldExportThePaymentCountersAtZeroBeforeAnyEvent() {
        String metrics = Management.metrics();
        for (String series : List.of("orderflow_payments_notifications_total{outcome=\"rejected\",provider=\"mockpay\"}",
                "orderflow_payments_anomalies_total{kind=\"amount-mismatch\"}",
                "orderflow_payments_reconciliation_total{outcome=\"pending\",provider=\"mockpay\"}",
                "orderflow_transitions_total{event=\"CANCEL\",outcome=\"illegal\"}")) {
            assertTrue(metrics.contains(series), series + " is exported from startup");
        }
    }

    private static Set<String> exportedNames(String exposition) {
        Set<String> names = new TreeSet<>();
        exposition.lines().filter(line -> !line.startsWith("#") && !line.isBlank())
                .map(line -> line.split("[{ ]", 2)[0]).forEach(names::add);
        return names;
    }
}
