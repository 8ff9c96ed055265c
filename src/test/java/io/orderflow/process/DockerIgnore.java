package io.orderflow.process;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A {@code .dockerignore} read as Docker reads it: each line a pattern on the path relative to the context (a
 * leading {@code !} lets back in what an earlier line left out), {@code *} and {@code ?} within one path element,
 * {@code **} across any number of them; the last pattern that matches a path, or one of its parent folders, decides.
 */
record DockerIgnore(List<Rule> rules) {

    record Rule(Pattern pattern, boolean exception, String text) {
    }

    static DockerIgnore parse(List<String> lines) {
        List<Rule> rules = new ArrayList<>();
        for (String line : lines) {
            String pattern = line.strip();
            if (pattern.isEmpty() || pattern.startsWith("#")) {
                continue;
            }
            boolean exception = pattern.startsWith("!");
            String text = (exception ? pattern.substring(1) : pattern).strip().replaceAll("^/+|/+$", "");
            rules.add(new Rule(Pattern.compile(regex(text)), exception, text));
        }
        return new DockerIgnore(rules);
    }

    /** True when the file at {@code path} (relative, '/'-separated) is not part of the build context. */
    boolean excludes(String path) {
        boolean excluded = false;
        for (Rule rule : rules) {
            if (matchesItselfOrAParent(rule.pattern(), path)) {
                excluded = !rule.exception();
            }
        }
        return excluded;
    }

    /** False when nothing under the folder {@code path} can be in the context: a walk may skip it. */
    boolean mayInclude(String folder) {
        if (!excludes(folder)) {
            return true;
        }
        return rules.stream().anyMatch(rule -> rule.exception() && rule.text().startsWith(folder + "/"));
    }

    private static boolean matchesItselfOrAParent(Pattern pattern, String path) {
        String candidate = path;
        while (true) {
            if (pattern.matcher(candidate).matches()) {
                return true;
            }
            int slash = candidate.lastIndexOf('/');
            if (slash < 0) {
                return false;
            }
            candidate = candidate.substring(0, slash);
        }
    }

    private static String regex(String glob) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*' && i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                regex.append(".*");
                i++;
                if (i + 1 < glob.length() && glob.charAt(i + 1) == '/') {
                    i++;
                    regex.append("/?");
                }
            } else if (c == '*') {
                regex.append("[^/]*");
            } else if (c == '?') {
                regex.append("[^/]");
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return regex.toString();
    }
}
