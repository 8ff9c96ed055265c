package io.orderflow.process;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.ItDatabase;
import io.orderflow.support.ServiceProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README cannot rot: its example blocks (fenced as {@code ```bash example}) run in order, as one bash session
 * in the project folder, against the packaged service, exactly as a newcomer pastes them — then their output is
 * checked for what the README says happens, and the README's state diagram for being the one the service serves.
 */
class ReadmeExamplesIT {

    private static final Path README = Path.of("README.md");
    private static final Pattern EXAMPLE = Pattern.compile("(?m)^```bash example\\n(.*?)^```$", Pattern.DOTALL);
    private static final Pattern MERMAID = Pattern.compile("(?m)^```mermaid\\n(.*?)^```$", Pattern.DOTALL);
    /** A served diagram in the examples' output: its first line and every indented line after it. */
    private static final Pattern SERVED_DIAGRAM = Pattern.compile("(?m)^stateDiagram-v2\\n(?: {4}.*\\n)*");

    static List<String> examples(String readme) {
        List<String> blocks = new ArrayList<>();
        Matcher m = EXAMPLE.matcher(readme);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        return blocks;
    }

    /** mockpay's acknowledgements in the examples' output, one a line. */
    static List<String> callbackAnswers(String out) {
        return out.lines().filter(line -> line.startsWith("{\"eventId\":")).toList();
    }

    static String firstCallbackAnswer(String out) {
        return callbackAnswers(out).stream().findFirst().orElse("(none)");
    }

    static String first(Pattern pattern, String text, int group) {
        Matcher m = pattern.matcher(text);
        return m.find() ? m.group(group) : "(none)";
    }

    @Test
    void shouldKeepTheTestCommandThatCiRunsVerbatim() throws IOException {
        String readme = Files.readString(README);
        assertTrue(readme.contains("\n./mvnw -B verify -Pfull && bench/run.sh --smoke\n"), "README's test command");
        assertTrue(Files.readString(Path.of(".ci/run")).contains("\n./mvnw -B verify -Pfull && bench/run.sh --smoke\n"),
                ".ci/run runs the README's test command");
    }

    @Test
    void shouldRunTheReadmeExamplesInOrderAgainstThePackagedService() throws Exception {
        List<String> blocks = examples(Files.readString(README));
        assertTrue(blocks.size() >= 8, "the README's example blocks: " + blocks.size());
        ItDatabase.createIfMissing();
        ServiceProcess service = ServiceProcess.start("ReadmeExamplesIT", Map.of()).awaitReady();
        try {
            String script = "set -euo pipefail\n" + String.join("\n", blocks);
            Path log = ServiceProcess.logDirectory().resolve("ReadmeExamplesIT-examples.log");
            ProcessBuilder bash = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            bash.environment().put("BASE", service.baseUri().toString());
            Process run = bash.start();
            boolean ended = run.waitFor(180, TimeUnit.SECONDS);
            if (!ended) {
                run.destroyForcibly();
            }
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(ended, "the examples did not finish:\n" + out);
            assertEquals(0, run.exitValue(), "an example failed:\n" + out);
            assertAll(
                    () -> assertTrue(out.matches("(?s).*HTTP/1.1 201 .*")
                            && out.matches("(?si).*\nlocation: /orders/.*") && out.matches("(?si).*\netag: \"0\".*"),
                            "create answers 201 with Location and ETag (in either order):\n" + out),
                    () -> assertTrue(out.contains("\n201\n"), "the retry loop ends on the stored 201:\n" + out),
                    () -> assertTrue(out.contains("\"status\":\"PAYMENT_PENDING\""), "pay:\n" + out),
                    () -> assertTrue(out.contains("\"outcome\":\"applied\""), "the signed callback:\n" + out),
                    () -> assertTrue(out.contains("\"status\":\"DELIVERED\""), "ship and deliver:\n" + out),
                    () -> assertEquals(List.of(firstCallbackAnswer(out), firstCallbackAnswer(out)),
                            callbackAnswers(out).subList(0, 2),
                            "the callback re-sent after delivery answers its first answer:\n" + out),
                    () -> assertTrue(out.contains("\"status\":\"REFUNDED\""),
                            "mockpay's signed refund callback settles the refund and the order:\n" + out),
                    () -> assertTrue(firstCallbackAnswer(out).contains("\"status\":\"PAID\""), "it says PAID:\n" + out),
                    () -> assertTrue(out.contains("illegal-transition") && out.contains("\"currentStatus\":\"DELIVERED\""),
                            "cancel after delivery is refused:\n" + out),
                    () -> assertTrue(out.contains("\"status\":\"CANCELLED\""), "the second order cancels:\n" + out),
                    () -> assertEquals(first(MERMAID, Files.readString(README), 1), first(SERVED_DIAGRAM, out, 0),
                            "the README's state diagram is the one GET /state-machine?format=mermaid serves"));
        } finally {
            service.stop();
        }
    }
}
