package io.orderflow.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The high-availability rig of {@code ha/rig.sh}, driven from a test: PostgreSQL 15 x3 under Patroni behind HAProxy,
 * Redis with three Sentinels, all on free loopback ports in a folder of their own. Every call runs the script (its
 * output goes to {@code target/it-logs/ha-rig.log}) and is bounded; {@link #logTails} is what a failing test prints.
 */
public final class HaRig {

    private static final Path SCRIPT = Path.of("ha/rig.sh");
    private static final Duration START = Duration.ofSeconds(Long.getLong("orderflow.it.haStartSeconds", 300));

    private final Path dir;
    private final Map<String, String> ports;

    private HaRig(Path dir, Map<String, String> ports) {
        this.dir = dir;
        this.ports = ports;
    }

    /** Starts the rig in {@code dir} (a running healthy rig there is reused) and waits until it is healthy. */
    public static HaRig start(Path dir) {
        run(START, "start", dir);
        HaRig rig = new HaRig(dir, readPorts(dir));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> exec(Duration.ofSeconds(60), "stop", dir),
                "stop-ha-rig"));
        return rig;
    }

    /** The service's environment for this rig: only HAProxy's port and the Sentinels. */
    public Map<String, String> serviceEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String line : run(Duration.ofSeconds(30), "env", dir).lines().toList()) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                env.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return env;
    }

    /** kill -9 of the leader's Patroni and postgres processes; returns the node killed. */
    public String killPrimary() {
        return lastLine(run(Duration.ofSeconds(30), "kill-primary", dir));
    }

    /** patronictl switchover to the synchronous standby; returns the new leader. */
    public String switchover() {
        return lastLine(run(Duration.ofSeconds(90), "switchover", dir));
    }

    /** kill -9 of the Redis master; returns its port. */
    public String killRedisMaster() {
        return lastLine(run(Duration.ofSeconds(30), "kill-redis-master", dir));
    }

    /** Restarts what was killed and waits until there is a leader, a synchronous standby and agreeing Sentinels. */
    public void heal() {
        run(START, "heal", dir);
    }

    /** The port of the Redis master the first Sentinel names now (null when it names none). */
    public String redisMasterPort() {
        Process p = null;
        try {
            p = new ProcessBuilder("redis-cli", "-h", "127.0.0.1", "-p", port("S1"), "SENTINEL",
                    "get-master-addr-by-name", ports.get("MASTER_NAME")).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(5, TimeUnit.SECONDS);
            List<String> lines = out.lines().toList();
            return lines.size() >= 2 ? lines.get(1).trim() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            if (p != null) {
                p.destroyForcibly();
            }
        }
    }

    public String port(String name) {
        return ports.get(name);
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port("HAPROXY") + "/" + ports.get("DB_NAME");
    }

    /** A connection to whichever node is the primary now (through HAProxy). */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), "postgres", "postgres");
    }

    public InvariantChecker checker() {
        return new InvariantChecker(jdbcUrl(), "postgres", "postgres");
    }

    /** Patroni's, HAProxy's, etcd's and Redis's last lines, and the rig's status: printed when a test fails. */
    public String logTails(int lines) {
        StringBuilder out = new StringBuilder("---- ha rig in " + dir + "\n");
        out.append(exec(Duration.ofSeconds(30), "status", dir));
        Path logs = dir.resolve("logs");
        if (Files.isDirectory(logs)) {
            try (Stream<Path> files = Files.list(logs)) {
                for (Path f : files.sorted().toList()) {
                    out.append("---- ").append(f.getFileName()).append('\n').append(tail(f, lines)).append('\n');
                }
            } catch (IOException e) {
                out.append("(logs unreadable: ").append(e.getMessage()).append(")\n");
            }
        }
        return out.toString();
    }

    /** Kills exactly the rig's processes and removes its folder. */
    public void stop() {
        run(Duration.ofSeconds(60), "stop", dir);
    }

    // ----------------------------------------------------------------------------------------------------------

    private static Map<String, String> readPorts(Path dir) {
        Map<String, String> ports = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(dir.resolve("ports.env"), StandardCharsets.UTF_8)) {
                int eq = line.indexOf('=');
                if (!line.startsWith("#") && eq > 0) {
                    ports.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the rig wrote no ports.env in " + dir, e);
        }
        return ports;
    }

    private static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(" + file + " unreadable)";
        }
    }

    private static String lastLine(String out) {
        List<String> lines = out.lines().filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1).trim();
    }

    /** Runs {@code ha/rig.sh command dir}; fails with its output unless it exits 0 within {@code bound}. */
    private static String run(Duration bound, String command, Path dir) {
        String[] result = new String[1];
        int code = exec(bound, command, dir, result);
        if (code != 0) {
            throw new IllegalStateException("ha/rig.sh " + command + " exited " + code + ":\n" + result[0]
                    + "\n" + tail(ServiceProcess.logDirectory().resolve("ha-rig.log"), 30));
        }
        return result[0];
    }

    private static String exec(Duration bound, String command, Path dir) {
        String[] result = new String[1];
        exec(bound, command, dir, result);
        return result[0];
    }

    /** The script's stdout goes to result[0]; stderr (its log lines) to target/it-logs/ha-rig.log. */
    private static int exec(Duration bound, String command, Path dir, String[] result) {
        Path log = ServiceProcess.logDirectory().resolve("ha-rig.log");
        List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString(), command, dir.toString()));
        try {
            Path out = Files.createTempFile("ha-rig-", ".out");
            Files.writeString(log, "\n$ " + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            if (!p.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                result[0] = "(timed out after " + bound + "; see " + log + ")";
                return -1;
            }
            result[0] = Files.readString(out, StandardCharsets.UTF_8);
            Files.deleteIfExists(out);
            Files.writeString(log, result[0], StandardCharsets.UTF_8, StandardOpenOption.APPEND);
            return p.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + cmd, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
