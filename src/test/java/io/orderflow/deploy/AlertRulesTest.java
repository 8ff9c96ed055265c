package io.orderflow.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The alert rules (k8s/monitoring/orderflow-rules.yaml), their PrometheusRule copy, their promtool unit tests, their
 * runbook lines and the Grafana dashboard, checked against each other. promtool runs when it is installed
 * (k8s/monitoring/install-promtool.sh; .ci/run installs it). ExportedMetricsTest checks the names they query against
 * what the service exports.
 */
class AlertRulesTest {

    static final Path MONITORING = Path.of("k8s/monitoring");
    static final Path RULES = MONITORING.resolve("orderflow-rules.yaml");
    static final Path RULE_TESTS = MONITORING.resolve("orderflow-rules.test.yaml");
    static final Path PROMETHEUS_RULE = MONITORING.resolve("prometheusrule.yaml");
    static final Path DASHBOARD = MONITORING.resolve("orderflow-dashboard.json");
    static final Path RUNBOOK = Path.of("docs/operations.md");
    /** The service's own metric names in a PromQL expression (not those of PostgreSQL's or Redis's exporters). */
    private static final Pattern OWN_METRIC = Pattern.compile("\\b((?:orderflow|http_server|jvm|process)_[a-z0-9_]+)\\b");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldKeepThePrometheusRuleEqualToThePlainRulesFile() throws IOException {
        JsonNode plain = YAML.readTree(RULES.toFile()).get("groups");
        JsonNode resource = YAML.readTree(PROMETHEUS_RULE.toFile());
        assertEquals("PrometheusRule", resource.get("kind").asText());
        assertEquals(plain, resource.get("spec").get("groups"),
                "prometheusrule.yaml's spec.groups must be orderflow-rules.yaml's groups");
    }

    @Test
    void shouldPassPromtoolsCheckAndUnitTests() throws Exception {
        Optional<Path> promtool = KubernetesManifestsTest.onPath("promtool");
        if (promtool.isEmpty()) {
            System.out.println("promtool is not on PATH (k8s/monitoring/install-promtool.sh): the rules were not run");
            return;
        }
        promtool(promtool.get(), "check", "rules", RULES.getFileName().toString());
        promtool(promtool.get(), "test", "rules", RULE_TESTS.getFileName().toString());
    }

    @Test
    void shouldTestEveryAlertFiringAndStayingSilent() throws IOException {
        Set<String> fires = new TreeSet<>();
        Set<String> silent = new TreeSet<>();
        for (JsonNode test : YAML.readTree(RULE_TESTS.toFile()).get("tests")) {
            for (JsonNode check : test.path("alert_rule_test")) {
                (check.path("exp_alerts").isEmpty() ? silent : fires).add(check.get("alertname").asText());
            }
        }
        Set<String> alerts = alertNames();
        assertEquals(alerts, fires, "every alert has a promtool test in which it fires");
        assertEquals(alerts, silent, "every alert has a promtool test in which it stays silent");
    }

    @Test
    void shouldLinkEveryAlertToItsRunbookLine() throws IOException {
        String runbook = Files.readString(RUNBOOK);
        for (JsonNode rule : alertRules()) {
            String alert = rule.get("alert").asText();
            String url = rule.path("annotations").path("runbook_url").asText();
            assertTrue(url.endsWith("docs/operations.md#" + alert.toLowerCase(Locale.ROOT)),
                    alert + "'s runbook_url points at its heading in docs/operations.md: " + url);
            assertTrue(runbook.contains("\n### " + alert + "\n"), "docs/operations.md has no heading ### " + alert);
            assertFalse(rule.path("annotations").path("summary").asText().isBlank(), alert + " has a summary");
        }
    }

    @Test
    void shouldLoadTheDashboardAsGrafanaJsonWithAQueryOnEveryPanel() throws IOException {
        JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
        assertTrue(dashboard.path("schemaVersion").asInt() >= 36, "a current Grafana schema version");
        assertFalse(dashboard.path("uid").asText().isBlank(), "the dashboard has a uid");
        Set<Integer> ids = new TreeSet<>();
        for (JsonNode panel : dashboard.get("panels")) {
            assertTrue(ids.add(panel.get("id").asInt()), "panel ids are unique");
            for (String field : List.of("x", "y", "w", "h")) {
                assertTrue(panel.path("gridPos").path(field).isInt(), "panel " + panel.get("title") + " gridPos." + field);
            }
            assertFalse(panel.path("targets").isEmpty(), "panel " + panel.get("title") + " queries nothing");
            for (JsonNode target : panel.get("targets")) {
                assertFalse(OWN_METRIC.matcher(target.get("expr").asText()).results().toList().isEmpty(),
                        "panel " + panel.get("title") + " queries none of the service's metrics");
            }
        }
        for (String topic : List.of("orderflow_transitions_total", "orderflow_idempotency_replays_total",
                "orderflow_payments_notifications_total", "orderflow_payments_anomalies_total",
                "orderflow_payments_refunds_total", "http_server_requests_seconds_bucket", "orderflow_db_pending",
                "orderflow_idempotency_redis_fallbacks_total", "jvm_memory_used_bytes")) {
            assertTrue(queriedNames().contains(topic), "the dashboard or the rules show " + topic);
        }
    }

    // --- shared with ExportedMetricsTest ---

    /** Every metric name of the service's own that a rule or a dashboard panel queries. */
    static Set<String> queriedNames() throws IOException {
        List<String> expressions = new ArrayList<>();
        alertRules().forEach(rule -> expressions.add(rule.get("expr").asText()));
        for (JsonNode panel : JSON.readTree(DASHBOARD.toFile()).get("panels")) {
            panel.path("targets").forEach(target -> expressions.add(target.get("expr").asText()));
        }
        Set<String> names = new TreeSet<>();
        for (String expression : expressions) {
            Matcher name = OWN_METRIC.matcher(expression);
            while (name.find()) {
                names.add(name.group(1));
            }
        }
        return names;
    }

    private static List<JsonNode> alertRules() throws IOException {
        List<JsonNode> rules = new ArrayList<>();
        for (JsonNode group : YAML.readTree(RULES.toFile()).get("groups")) {
            group.get("rules").forEach(rules::add);
        }
        assertFalse(rules.isEmpty(), "no rules in " + RULES);
        return rules;
    }

    private static Set<String> alertNames() throws IOException {
        Set<String> names = new TreeSet<>();
        alertRules().forEach(rule -> names.add(rule.get("alert").asText()));
        return names;
    }

    private static void promtool(Path promtool, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(promtool.toString()));
        command.addAll(List.of(arguments));
        Path output = Files.createTempFile("promtool", ".out");
        try {
            Process process = new ProcessBuilder(command).directory(MONITORING.toFile()).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).start();
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                fail("promtool " + String.join(" ", arguments) + " did not finish within 2 minutes");
            }
            assertEquals(0, process.exitValue(), "promtool " + String.join(" ", arguments) + ":\n"
                    + Files.readString(output));
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
