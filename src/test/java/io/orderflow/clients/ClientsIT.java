package io.orderflow.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.orderflow.common.Callers;
import io.orderflow.support.Auth;
import io.orderflow.support.ItDatabase;
import io.orderflow.support.RedisDb;
import io.orderflow.support.ServiceProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The clients (clients/, a Maven build of their own: docs/clients.md) built and tested against the packaged jar, in
 * the full tier: this test starts the service twice on the process-level tests' database and Redis (the second
 * instance sheds load beyond one statement in flight, {@code orders.database.max-pending=1}), then runs the clients'
 * {@code verify} ({@code ./mvnw -f clients/pom.xml}) with the instances' addresses, tokens and the database in its
 * environment: generation from openapi.yaml, compilation (tsc --strict too), unit tests, the Java client's
 * integration tests and the TypeScript client's {@code npm test}. A run that skipped a client test fails here.
 */
class ClientsIT {

    private static final Duration BUILD_BOUND = Duration.ofMinutes(25);
    private static final Path LOG = ServiceProcess.logDirectory().resolve("clients-build.log");

    @Test
    void shouldBuildBothClientsAndPassTheirTestsAgainstThePackagedService() throws Exception {
        String version = System.getProperty("orderflow.clients.version");
        assumeTrue(version != null, "the clients are built and tested in the full tier (-Pfull)");
        ItDatabase.recreate();
        RedisDb.flush();
        // webhooks to the tests' receivers on loopback; both instances deliver them (they share the endpoints)
        Map<String, String> env = Map.of("EVENTS_WEBHOOKS_ALLOW_PRIVATE_TARGETS", "true");
        ServiceProcess service = ServiceProcess.start("clients", env);
        ServiceProcess shedding = ServiceProcess.start("clients-shedding",
                Map.of("EVENTS_WEBHOOKS_ALLOW_PRIVATE_TARGETS", "true", "ORDERS_DATABASE_MAX_PENDING", "1"));
        try {
            service.awaitReady();
            shedding.awaitReady();
            Instant expiry = Instant.now().plus(BUILD_BOUND).plus(Duration.ofMinutes(5));
            ProcessBuilder build = new ProcessBuilder(Path.of("mvnw").toAbsolutePath().toString(), "-B",
                    "-f", "clients/pom.xml", "-Drevision=" + version, "verify")
                    .redirectErrorStream(true).redirectOutput(LOG.toFile());
            Map<String, String> clientEnv = build.environment();
            clientEnv.put("ORDERFLOW_URL", service.baseUri().toString());
            clientEnv.put("ORDERFLOW_SHEDDING_URL", shedding.baseUri().toString());
            clientEnv.put("ORDERFLOW_CUSTOMER_ID", "c-clients");
            clientEnv.put("ORDERFLOW_CUSTOMER_TOKEN", Auth.token(Callers.CUSTOMER, "c-clients", expiry));
            clientEnv.put("ORDERFLOW_OPERATOR_TOKEN", Auth.token(Callers.OPERATOR, "ops-clients", expiry));
            clientEnv.put("ORDERFLOW_MOCKPAY_SECRET", ServiceProcess.SECRET);
            clientEnv.put("ORDERFLOW_JDBC_URL", ItDatabase.jdbcUrl());
            clientEnv.put("ORDERFLOW_JDBC_USER", ItDatabase.user());
            clientEnv.put("ORDERFLOW_JDBC_PASSWORD", ItDatabase.password());
            long started = System.nanoTime();
            Process run = build.start();
            boolean ended = run.waitFor(BUILD_BOUND.toSeconds(), TimeUnit.SECONDS);
            if (!ended) {
                run.descendants().forEach(ProcessHandle::destroyForcibly);
                run.destroyForcibly();
            }
            String out = Files.readString(LOG, StandardCharsets.UTF_8);
            assertTrue(ended, "the clients' build did not end within " + BUILD_BOUND + ":\n" + tail(out));
            assertEquals(0, run.exitValue(), "the clients' build failed (" + LOG + "):\n" + tail(out));
            System.out.printf("[clients] built and tested in %d s%n",
                    Duration.ofNanos(System.nanoTime() - started).toSeconds());

            String javaIts = Files.readString(Path.of("clients/java/target/failsafe-reports/failsafe-summary.xml"));
            assertTrue(number("completed", javaIts) >= 5, "the Java client's integration tests ran:\n" + javaIts);
            assertEquals(0, number("skipped", javaIts), "none skipped:\n" + javaIts);
            assertTrue(number("# pass", out) >= 8, "the TypeScript client's tests ran:\n" + tail(out));
            assertEquals(0, number("# skipped", out), "none skipped:\n" + tail(out));
        } finally {
            shedding.stop();
            service.stop();
        }
    }

    /** {@code <name>n</name>} in a failsafe summary, or {@code name n} in node's test report. */
    private static int number(String name, String text) {
        Matcher m = Pattern.compile("(?:<" + name + ">|^" + name + " )(\\d+)", Pattern.MULTILINE).matcher(text);
        assertTrue(m.find(), name + " in:\n" + tail(text));
        return Integer.parseInt(m.group(1));
    }

    private static String tail(String text) {
        List<String> lines = text.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 120), lines.size()));
    }
}
