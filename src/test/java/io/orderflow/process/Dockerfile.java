package io.orderflow.process;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The instructions of a Dockerfile that {@link ImageBuildContextIT} replays: FROM (a stage), WORKDIR, COPY (with
 * {@code --from}), RUN, ENV, EXPOSE and an exec-form ENTRYPOINT. Continued lines are joined, comments dropped.
 */
record Dockerfile(List<Stage> stages) {

    record Instruction(String keyword, String text, String from) {

        /** COPY's sources and destination, its flags left out. */
        List<String> arguments() {
            return Arrays.stream(text.trim().split("\\s+")).filter(part -> !part.startsWith("--")).toList();
        }
    }

    record Stage(String workdir, List<Instruction> instructions, Map<String, String> environment,
            Set<Integer> exposed, List<String> entryPoint) {
    }

    static Dockerfile parse(List<String> lines) {
        List<String> logical = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : lines) {
            String trimmed = line.strip();
            if (trimmed.startsWith("#") || (trimmed.isEmpty() && current.isEmpty())) {
                continue;
            }
            if (trimmed.endsWith("\\")) {
                current.append(trimmed, 0, trimmed.length() - 1).append(' ');
                continue;
            }
            logical.add(current.append(trimmed).toString());
            current.setLength(0);
        }
        List<Stage> stages = new ArrayList<>();
        String workdir = "/";
        List<Instruction> instructions = null;
        Map<String, String> environment = null;
        Set<Integer> exposed = null;
        List<String> entryPoint = List.of();
        for (String line : logical) {
            String[] parts = line.split("\\s+", 2);
            String keyword = parts[0].toUpperCase();
            String rest = parts.length > 1 ? parts[1] : "";
            if (keyword.equals("FROM")) {
                if (instructions != null) {
                    stages.add(new Stage(workdir, instructions, environment, exposed, entryPoint));
                }
                workdir = "/";
                instructions = new ArrayList<>();
                environment = new LinkedHashMap<>();
                exposed = new TreeSet<>();
                entryPoint = List.of();
                continue;
            }
            switch (keyword) {
                case "WORKDIR" -> workdir = rest.trim();
                case "ENV" -> {
                    int equals = rest.indexOf('=');
                    environment.put(rest.substring(0, equals).trim(), unquote(rest.substring(equals + 1).trim()));
                }
                case "EXPOSE" -> {
                    for (String port : rest.trim().split("\\s+")) {
                        exposed.add(Integer.parseInt(port.replace("/tcp", "")));
                    }
                }
                case "ENTRYPOINT" -> entryPoint = json(rest);
                default -> {
                }
            }
            String from = null;
            for (String flag : rest.split("\\s+")) {
                if (flag.startsWith("--from=")) {
                    from = flag.substring("--from=".length());
                }
            }
            instructions.add(new Instruction(keyword, rest, from));
        }
        if (instructions != null) {
            stages.add(new Stage(workdir, instructions, environment, exposed, entryPoint));
        }
        return new Dockerfile(stages);
    }

    private static String unquote(String value) {
        return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                ? value.substring(1, value.length() - 1).replace("\\\"", "\"") : value;
    }

    private static List<String> json(String array) {
        try {
            return new ObjectMapper().readValue(array, new TypeReference<List<String>>() {
            });
        } catch (Exception e) {
            throw new IllegalArgumentException("ENTRYPOINT is not in exec form (a JSON array): " + array, e);
        }
    }
}
