package io.orderflow.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * The recording rules and alerts (k8s/monitoring/prometheusrule.yaml), their promtool unit tests, their runbook lines
 * and the Grafana dashboard, checked against each other. The PrometheusRule's spec, with the runbook base URL of
 * settings.yaml put before each alert's "#heading" as kustomize does, is the plain rules file promtool checks and
 * tests (k8s/monitoring/install-promtool.sh; .ci/run installs it; without it the rest still runs). ExportedMetricsTest
 * checks the series they select against a scrape of the running service.
 */
class AlertRulesTest {

    static final Path MONITORING = Path.of("k8s/monitoring");
    /** The plain rules file's name, as the promtool tests load it. */
    static final String RULES = "orderflow-rules.yaml";
    /** promtool's unit tests: the SLO alerts' sampled every 5 minutes (their windows reach a day), the rest every minute. */
    static final List<Path> RULE_TESTS = List.of(MONITORING.resolve("orderflow-rules.test.yaml"),
            MONITORING.resolve("orderflow-slo.test.yaml"));
    static final Path PROMETHEUS_RULE = MONITORING.resolve("prometheusrule.yaml");
    static final Path SETTINGS = MONITORING.resolve("settings.yaml");
    static final Path DASHBOARD = MONITORING.resolve("orderflow-dashboard.json");
    static final Path RUNBOOK = Path.of("docs/operations.md");
    /** The service's own metric names in a PromQL expression (not those of PostgreSQL's or Redis's exporters). */
    static final Pattern OWN_METRIC = Pattern.compile("\\b((?:orderflow|http_server|jvm|process)_[a-z0-9_]+)\\b");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldRenderTheRunbookBaseFromOnePlaceAsKustomizeDoes() throws Exception {
        String base = runbookBase();
        assertTrue(base.startsWith("https://") && base.endsWith("docs/operations.md"), "runbookBaseUrl: " + base);
        for (JsonNode rule : alertRules(YAML.readTree(PROMETHEUS_RULE.toFile()).get("spec").get("groups"))) {
            String url = rule.path("annotations").path("runbook_url").asText();
            assertTrue(url.startsWith("#"), rule.get("alert").asText() + " names its heading only (the base is in "
                    + SETTINGS + "): " + url);
        }
        Optional<Path> kubectl = KubernetesManifestsTest.onPath("kubectl");
        if (kubectl.isEmpty()) {
            System.out.println("kubectl is not on PATH: the monitoring kustomization was not rendered");
            return;
        }
        JsonNode rendered = null;
        try (var documents = YAML.readerFor(JsonNode.class)
                .<JsonNode>readValues(KubernetesManifestsTest.kustomize(kubectl.get(), MONITORING))) {
            for (JsonNode object : documents.readAll()) {
                if (object.path("kind").asText().equals("PrometheusRule")) {
                    rendered = object.get("spec").get("groups");
                }
            }
        }
        assertEquals(plainGroups(), rendered, "kustomize renders the rules as this test hands them to promtool");
    }

    @Test
    void shouldPassPromtoolsCheckAndUnitTests() throws Exception {
        Optional<Path> promtool = KubernetesManifestsTest.onPath("promtool");
        if (promtool.isEmpty()) {
            System.out.println("promtool is not on PATH (k8s/monitoring/install-promtool.sh): the rules were not run");
            return;
        }
        Path directory = Files.createTempDirectory("orderflow-rules");
        try {
            YAML.writeValue(directory.resolve(RULES).toFile(), YAML.createObjectNode().set("groups", plainGroups()));
            promtool(promtool.get(), directory, "check", "rules", RULES);
            for (Path tests : RULE_TESTS) {
                Files.copy(tests, directory.resolve(tests.getFileName()));
                promtool(promtool.get(), directory, "test", "rules", tests.getFileName().toString());
            }
        } finally {
            try (var files = Files.list(directory)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(directory);
        }
    }

    @Test
    void shouldTestEveryAlertFiringAndStayingSilent() throws IOException {
        Set<String> fires = new TreeSet<>();
        Set<String> silent = new TreeSet<>();
        for (Path tests : RULE_TESTS) {
            for (JsonNode test : YAML.readTree(tests.toFile()).get("tests")) {
                for (JsonNode check : test.path("alert_rule_test")) {
                    (check.path("exp_alerts").isEmpty() ? silent : fires).add(check.get("alertname").asText());
                }
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
            assertEquals(runbookBase() + "#" + alert.toLowerCase(Locale.ROOT), url,
                    alert + "'s runbook_url points at its heading in docs/operations.md");
            assertTrue(runbook.contains("\n### " + alert + "\n"), "docs/operations.md has no heading ### " + alert);
            assertFalse(rule.path("annotations").path("summary").asText().isBlank(), alert + " has a summary");
            assertTrue(Set.of("critical", "warning").contains(rule.path("labels").path("severity").asText()),
                    alert + " is critical (pages) or warning (a ticket)");
        }
    }

    @Test
    void shouldScopeEveryExpressionByNamespaceAndJob() throws IOException {
        for (JsonNode group : plainGroups()) {
            for (JsonNode rule : group.get("rules")) {
                String name = rule.has("alert") ? rule.get("alert").asText() : rule.get("record").asText();
                String expression = rule.get("expr").asText();
                for (PromQlSelectors.Selector selector : PromQlSelectors.of(expression)) {
                    assertTrue(expression.contains(selector.metric() + "{job=\"orderflow\""),
                            name + " selects " + selector.metric() + " of job orderflow only");
                }
                if (expression.contains(" by (")) {
                    assertTrue(expression.replaceAll("\\s+", " ").matches("(?s).*\\bby \\(namespace, job\\b.*"),
                            name + " aggregates by namespace and job: " + expression);
                }
            }
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

    /** Every PromQL expression of the rules (recording rules and alerts) and of the dashboard's panels. */
    static List<String> expressions() throws IOException {
        List<String> expressions = new ArrayList<>();
        for (JsonNode group : plainGroups()) {
            group.get("rules").forEach(rule -> expressions.add(rule.get("expr").asText()));
        }
        for (JsonNode panel : JSON.readTree(DASHBOARD.toFile()).get("panels")) {
            panel.path("targets").forEach(target -> expressions.add(target.get("expr").asText()));
        }
        return expressions;
    }

    /** Every metric name of the service's own that a rule or a dashboard panel queries. */
    static Set<String> queriedNames() throws IOException {
        Set<String> names = new TreeSet<>();
        for (String expression : expressions()) {
            PromQlSelectors.of(expression).forEach(selector -> names.add(selector.metric()));
        }
        return names;
    }

    /** The PrometheusRule's groups with the runbook base in place: what kustomize renders, a plain rules file's body. */
    static JsonNode plainGroups() throws IOException {
        JsonNode groups = YAML.readTree(PROMETHEUS_RULE.toFile()).get("spec").get("groups");
        String base = runbookBase();
        for (JsonNode rule : alertRules(groups)) {
            ObjectNode annotations = (ObjectNode) rule.get("annotations");
            annotations.put("runbook_url", base + annotations.path("runbook_url").asText());
        }
        return groups;
    }

    private static String runbookBase() throws IOException {
        return YAML.readTree(SETTINGS.toFile()).get("data").get("runbookBaseUrl").asText();
    }

    private static List<JsonNode> alertRules() throws IOException {
        return alertRules(plainGroups());
    }

    private static List<JsonNode> alertRules(JsonNode groups) {
        List<JsonNode> rules = new ArrayList<>();
        for (JsonNode group : groups) {
            group.get("rules").forEach(rule -> {
                if (rule.has("alert")) {
                    rules.add(rule);
                }
            });
        }
        assertFalse(rules.isEmpty(), "no alerts in " + PROMETHEUS_RULE);
        return rules;
    }

    private static Set<String> alertNames() throws IOException {
        Set<String> names = new TreeSet<>();
        alertRules().forEach(rule -> names.add(rule.get("alert").asText()));
        return names;
    }

    private static void promtool(Path promtool, Path directory, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(promtool.toString()));
        command.addAll(List.of(arguments));
        Path output = Files.createTempFile("promtool", ".out");
        try {
            Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
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
