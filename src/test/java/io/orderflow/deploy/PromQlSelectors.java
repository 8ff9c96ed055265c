package io.orderflow.deploy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The series selectors of PromQL expressions (rules, dashboard panels): each metric name with its label matchers, so
 * that a test can ask a scrape of the running service whether some series answers each of them. Prometheus's own
 * series ({@code up}) and recording rules' names (with a colon) are left out: the service exports neither.
 */
final class PromQlSelectors {

    /** Labels that Prometheus adds when it scrapes a target: the service never exports them. */
    static final Set<String> TARGET_LABELS = Set.of("job", "namespace", "instance", "pod", "service", "endpoint",
            "container");

    record LabelMatcher(String label, String op, String value) {

        boolean matches(Map<String, String> labels) {
            String actual = labels.getOrDefault(label, "");
            return switch (op) {
                case "=" -> actual.equals(value);
                case "!=" -> !actual.equals(value);
                case "=~" -> actual.matches(value);
                case "!~" -> !actual.matches(value);
                default -> throw new IllegalArgumentException(op);
            };
        }

        /** A regex that only lists literal values ({@code a|b|c}): each of them must be exported. */
        List<String> literals() {
            return op.equals("=~") && value.matches("[A-Za-z0-9_-]+(\\|[A-Za-z0-9_-]+)*") ? List.of(value.split("\\|"))
                    : List.of();
        }

        @Override
        public String toString() {
            return label + op + "\"" + value + "\"";
        }
    }

    record Selector(String metric, List<LabelMatcher> matchers) {

        @Override
        public String toString() {
            return metric + matchers;
        }
    }

    private static final Pattern GROUPING = Pattern.compile(
            "\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern RANGE = Pattern.compile("\\[[^\\]]*\\]");
    private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*(\\{([^}]*)\\})?\\s*(\\()?");
    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on",
            "ignoring", "group_left", "group_right", "inf", "nan");

    private PromQlSelectors() {
    }

    /** Every selector of the service's metrics in {@code expression}; Grafana variables ({@code $job}) dropped. */
    static List<Selector> of(String expression) {
        String text = RANGE.matcher(GROUPING.matcher(expression).replaceAll(" ")).replaceAll(" ");
        List<Selector> selectors = new ArrayList<>();
        Matcher found = SELECTOR.matcher(text);
        while (found.find()) {
            String name = found.group(1);
            boolean call = found.group(4) != null && found.group(2) == null;
            if (call || KEYWORDS.contains(name) || name.contains(":") || name.equals("up")
                    || !AlertRulesTest.OWN_METRIC.matcher(name).matches()) {
                continue;
            }
            List<LabelMatcher> matchers = new ArrayList<>();
            if (found.group(3) != null) {
                Matcher matcher = MATCHER.matcher(found.group(3));
                while (matcher.find()) {
                    String value = matcher.group(3).replace("\\\\", "\\").replace("\\\"", "\"");
                    if (!TARGET_LABELS.contains(matcher.group(1)) && !value.contains("$")) {
                        matchers.add(new LabelMatcher(matcher.group(1), matcher.group(2), value));
                    }
                }
            }
            selectors.add(new Selector(name, matchers));
        }
        return selectors;
    }

    /** One series of a Prometheus text exposition: its name and labels. */
    record Series(String name, Map<String, String> labels) {
    }

    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    static List<Series> scrape(String exposition) {
        List<Series> series = new ArrayList<>();
        for (String line : exposition.lines().toList()) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.indexOf(' ');
            if (brace < 0 || (space >= 0 && space < brace)) {
                series.add(new Series(line.substring(0, space), Map.of()));
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            Matcher label = LABEL.matcher(line.substring(brace, line.lastIndexOf('}') + 1));
            while (label.find()) {
                labels.put(label.group(1), label.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
            }
            series.add(new Series(line.substring(0, brace), labels));
        }
        return series;
    }
}
