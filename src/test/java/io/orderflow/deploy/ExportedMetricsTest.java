package io.orderflow.deploy;

import static io.orderflow.support.OrderMother.paidOrder;
import static io.orderflow.support.OrderMother.post;
import static io.orderflow.support.OrderMother.shipBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.Management;
import io.orderflow.support.RowLocks;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every metric of the service's own that a rule or a dashboard panel queries is exported, from startup, and every
 * label value they select is one the service really exports: a rule on a series that does not exist (yet), or on a
 * label value spelt otherwise, is silently never true. The scrape is the one Prometheus makes. Which series and label
 * values are checked is read from k8s/monitoring (the PrometheusRule and the dashboard JSON), so a rule added or
 * renamed there is checked here without a change to this test.
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
    void shouldExportEveryLabelValueTheRulesAndTheDashboardSelect() throws Exception {
        // The series that only traffic brings (the counters and gauges exist from startup): a transition answered,
        // and one answered 503, its statement stuck behind a row lock until PostgreSQL's statement timeout ended it.
        post(paidOrder(), "ship", shipBody()).then().statusCode(200);
        String stuck = paidOrder();
        try (RowLocks lock = RowLocks.on(stuck)) {
            post(stuck, "ship", shipBody()).then().statusCode(503);
        }
        List<PromQlSelectors.Series> scraped = PromQlSelectors.scrape(Management.metrics());
        Set<String> unanswered = new TreeSet<>();
        for (String expression : AlertRulesTest.expressions()) {
            for (PromQlSelectors.Selector selector : PromQlSelectors.of(expression)) {
                List<List<PromQlSelectors.LabelMatcher>> wanted = new ArrayList<>();
                wanted.add(selector.matchers());
                // a regex listing values (kind=~"a|b|c") wants each of them exported, not just one
                for (PromQlSelectors.LabelMatcher matcher : selector.matchers()) {
                    for (String literal : matcher.literals()) {
                        List<PromQlSelectors.LabelMatcher> one = new ArrayList<>(selector.matchers());
                        one.set(one.indexOf(matcher), new PromQlSelectors.LabelMatcher(matcher.label(), "=", literal));
                        wanted.add(one);
                    }
                }
                for (List<PromQlSelectors.LabelMatcher> matchers : wanted) {
                    boolean answered = scraped.stream().anyMatch(series -> series.name().equals(selector.metric())
                            && matchers.stream().allMatch(matcher -> matcher.matches(series.labels())));
                    if (!answered) {
                        unanswered.add(selector.metric() + matchers);
                    }
                }
            }
        }
        assertEquals(Set.of(), unanswered, "selected by k8s/monitoring, but no exported series has these labels");
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
                "orderflow_transitions_total{event=\"CANCEL\",outcome=\"illegal\"}",
                "orderflow_payments_refunds_total{provider=\"mockpay\",status=\"failed\"}",
                "orderflow_payments_provider_calls_total{operation=\"create-refund\",provider=\"mockpay\",status=\"undefined\"}",
                "orderflow_payments_provider_circuit_open{provider=\"mockpay\"}")) {
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
