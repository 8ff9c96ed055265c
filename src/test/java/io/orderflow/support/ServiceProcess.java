package io.orderflow.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The packaged service ({@code target/quarkus-app/quarkus-run.jar}) as a real child process: its own free port on
 * 127.0.0.1, configured by environment variables only (as in production), its stdout and stderr captured to
 * {@code target/it-logs/<name>.log}. {@link #start} returns at once, so several instances boot concurrently;
 * {@link #awaitReady} then waits, bounded, for {@code /q/health/ready}.
 *
 * <p>The jar comes from the system property {@code orderflow.jar} (failsafe sets it), else the default path. Every
 * process still running when the test JVM exits is killed by a shutdown hook.
 */
public final class ServiceProcess {

    public static final String SECRET = Callbacks.SECRET;
    private static final Duration STARTUP = Duration.ofSeconds(Long.getLong("orderflow.it.startupSeconds", 240));
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();
    private static final HttpClient PROBE = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly)));
    }

    private final String name;
    private final int port;
    private final int managementPort;
    private final Path log;
    private final Process process;
    private final Map<String, String> extra;
    private final Launch launch;

    private ServiceProcess(String name, int port, int managementPort, Path log, Process process,
            Map<String, String> extra, Launch launch) {
        this.name = name;
        this.port = port;
        this.managementPort = managementPort;
        this.log = log;
        this.process = process;
        this.extra = extra;
        this.launch = launch;
    }

    /** The switch of the prod profile's JSON console; {@link #AS_SHIPPED} as its value leaves the shipped default. */
    public static final String JSON_LOGS = "QUARKUS_LOG_CONSOLE_JSON_ENABLED";
    public static final String AS_SHIPPED = "as-shipped";
    /** As the value of a variable in {@code extra}: that variable of {@link #baseEnvironment} is not set at all. */
    public static final String UNSET = "\0unset";

    /** The environment every instance gets: the IT database and Redis database, the dev JWT key, the mockpay secret. */
    public static Map<String, String> baseEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
        env.put("QUARKUS_MANAGEMENT_HOST", "127.0.0.1");
        env.put("QUARKUS_DATASOURCE_REACTIVE_URL", ItDatabase.reactiveUrl());
        env.put("QUARKUS_DATASOURCE_JDBC_URL", ItDatabase.jdbcUrl());
        env.put("QUARKUS_DATASOURCE_USERNAME", ItDatabase.user());
        env.put("QUARKUS_DATASOURCE_PASSWORD", ItDatabase.password());
        // three replicas plus everyone else's builds share one PostgreSQL (max_connections 100): a smaller pool
        env.put("QUARKUS_DATASOURCE_REACTIVE_MAX_SIZE", "6");
        env.put("QUARKUS_REDIS_HOSTS", RedisDb.url());
        env.put("PAYMENTS_PROVIDERS_MOCKPAY_SECRETS", SECRET);
        env.put("MP_JWT_VERIFY_PUBLICKEY_LOCATION", "dev/publicKey.pem");
        env.put("MP_JWT_VERIFY_ISSUER", Auth.ISSUER);
        return env;
    }

    /** Starts the jar as {@code name} (also the log file's name) with {@link #baseEnvironment} plus {@code extra}. */
    public static ServiceProcess start(String name, Map<String, String> extra) {
        return start(name, extra, null, FreePorts.take(), FreePorts.take());
    }

    /**
     * Starts the service as {@code command} in {@code directory} (the container image's entry point, say) instead
     * of the packaged jar, with the same environment, ports and log as {@link #start(String, Map)}.
     */
    public static ServiceProcess start(String name, Map<String, String> extra, List<String> command,
            Path directory) {
        return start(name, extra, new Launch(command, directory), FreePorts.take(), FreePorts.take());
    }

    /** A command other than the packaged jar's, and where it runs. */
    private record Launch(List<String> command, Path directory) {
    }

    /**
     * Starts the jar again as {@code name} on this instance's ports and with its environment, as a supervisor
     * restarts a crashed service: clients that retry against its address reach the new process once it listens.
     */
    public ServiceProcess restart(String name) {
        if (process.isAlive()) {
            throw new IllegalStateException(this.name + " still runs on the ports " + name + " would take");
        }
        return start(name, extra, launch, port, managementPort);
    }

    private static ServiceProcess start(String name, Map<String, String> extra, Launch launch, int port,
            int managementPort) {
        Path log = logDirectory().resolve(name + ".log");
        // C1 only and the serial collector: less CPU spent on the JIT and GC threads while several JVMs share two cores
        List<String> command = launch != null ? launch.command() : new ArrayList<>(List.of(javaBinary(), "-Xmx512m",
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", jar().toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
        if (launch != null) {
            builder.directory(launch.directory().toFile());
        }
        builder.environment().putAll(baseEnvironment());
        extra.forEach((variable, value) -> {
            if (UNSET.equals(value)) {
                builder.environment().remove(variable);
            } else {
                builder.environment().put(variable, value);
            }
        });
        // LogScan reads plain lines: a prod jar's JSON console is turned plain unless a test asks for it as shipped
        String json = extra.get(JSON_LOGS);
        if (json == null) {
            builder.environment().put(JSON_LOGS, "false");
        } else if (json.equals(AS_SHIPPED)) {
            builder.environment().remove(JSON_LOGS);
        }
        builder.environment().put("QUARKUS_HTTP_PORT", String.valueOf(port));
        builder.environment().put("QUARKUS_MANAGEMENT_PORT", String.valueOf(managementPort));
        try {
            Process process = builder.start();
            RUNNING.add(process);
            process.onExit().thenRun(() -> RUNNING.remove(process));
            return new ServiceProcess(name, port, managementPort, log, process, Map.copyOf(extra), launch);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + command, e);
        }
    }

    /**
     * Waits until readiness answers 200, polling every 250 ms; fails at once (with the log's tail) if the process
     * exits, and after the startup bound ({@code orderflow.it.startupSeconds}, 240 s) otherwise.
     */
    public ServiceProcess awaitReady() {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        int maxPolls = (int) (STARTUP.toMillis() / 250) + 1;
        for (int i = 0; i < maxPolls && System.nanoTime() < deadline; i++) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + " while starting:\n"
                        + tail(60));
            }
            if (readiness() == 200) {
                return this;
            }
            sleep(250);
        }
        throw new IllegalStateException(name + " was not ready within " + STARTUP + ":\n" + tail(60));
    }

    /** Starts all at once (they boot concurrently) and waits for each to be ready. */
    public static List<ServiceProcess> startAll(List<String> names, Map<String, String> extra) {
        List<ServiceProcess> started = names.stream().map(n -> start(n, extra)).toList();
        started.forEach(ServiceProcess::awaitReady);
        return started;
    }

    /** {@link #readiness()} when the connection was refused: nothing listens on the port any more. */
    public static final int REFUSED = -1;
    /** {@link #readiness()} when the request failed otherwise (timed out, reset). */
    public static final int NO_ANSWER = -2;

    /** The readiness endpoint's status code, or {@link #REFUSED} or {@link #NO_ANSWER}. */
    public int readiness() {
        try {
            HttpResponse<Void> response = PROBE.send(HttpRequest.newBuilder(managementUri("/q/health/ready"))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.discarding());
            return response.statusCode();
        } catch (ConnectException e) {
            return REFUSED;
        } catch (IOException e) {
            return e.getCause() instanceof ConnectException ? REFUSED : NO_ANSWER;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return NO_ANSWER;
        }
    }

    /** True when a new TCP connection to the port is refused. */
    public boolean refusesConnections() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            return false;
        } catch (ConnectException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Kills every instance this JVM started that still runs (and says so); returns how many. */
    public static int killAllStarted() {
        int killed = 0;
        for (Process p : List.copyOf(RUNNING)) {
            System.out.println("killing a service instance left running: pid " + p.pid());
            p.destroyForcibly();
            killed++;
        }
        for (Process p : List.copyOf(RUNNING)) {
            try {
                p.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return killed;
    }

    /** Sends SIGTERM ({@link Process#destroy()} on Linux) and returns at once. */
    public void sigterm() {
        process.destroy();
    }

    /** Sends SIGKILL and waits for the process to be gone. */
    public void kill() {
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(30));
    }

    /** Waits, bounded, for the process to exit; returns its exit code. */
    public int awaitExit(Duration bound) {
        try {
            if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
                throw new IllegalStateException(name + " did not exit within " + bound + " and was killed:\n"
                        + tail(40));
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** SIGTERM, then wait for the exit (bounded); kills the process if it overstays. */
    public int stop() {
        if (!process.isAlive()) {
            return process.exitValue();
        }
        sigterm();
        return awaitExit(Duration.ofSeconds(90));
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** On the management interface (health, metrics), which has a port of its own. */
    public URI managementUri(String path) {
        return URI.create("http://127.0.0.1:" + managementPort + path);
    }

    public URI baseUri() {
        return uri("");
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    public Path log() {
        return log;
    }

    public String logText() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Lines written to the log so far: mark it before a SIGTERM to tell the shutdown's lines apart. */
    public long logLineCount() {
        return logText().lines().count();
    }

    public String tail(int lines) {
        List<String> all = logText().lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    @Override
    public String toString() {
        return name + "@" + port;
    }

    public static Path jar() {
        Path jar = Path.of(System.getProperty("orderflow.jar", "target/quarkus-app/quarkus-run.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("No packaged service at " + jar.toAbsolutePath()
                    + ": run ./mvnw package -DskipTests first (./mvnw verify does it before the ITs)");
        }
        return jar;
    }

    public static Path logDirectory() {
        Path dir = Path.of(System.getProperty("orderflow.it.logs", "target/it-logs"));
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
