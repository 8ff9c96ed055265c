package io.orderflow.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The default path of {@link TestServices}: a PostgreSQL cluster and a redis-server of this JVM's own, on free ports,
 * in {@code target/test-services/<pid>/} (initdb takes about a second). Both stop when the JVM exits; the folders of
 * JVMs that died without stopping theirs (kill -9) are cleaned up, and their servers stopped by pid, by the next run.
 *
 * <p>PostgreSQL refuses to run as root, so as root initdb and pg_ctl run as the {@code postgres} user (runuser). The
 * binaries come from {@code ORDERFLOW_TEST_PG_BIN}, else the newest {@code /usr/lib/postgresql/<n>/bin}, else PATH.
 * The cluster is a throwaway: fsync off, trust authentication, TCP on 127.0.0.1 only.
 */
final class PrivateServices {

    private static final Path ROOT = Path.of(System.getProperty("orderflow.test.services.dir", "target/test-services"));
    private static final String HOST = "127.0.0.1";
    private static final String USER = "postgres";
    /**
     * The server settings of a test PostgreSQL, the container's too ({@link ContainerServices}): room for every test
     * application's pools at once, and no durability (a throwaway).
     */
    static final List<String> POSTGRES_SETTINGS = List.of("max_connections=200", "fsync=off",
            "synchronous_commit=off", "full_page_writes=off");

    private PrivateServices() {
    }

    /** This JVM's folder for the servers it starts (a dead JVM's folder is cleaned up by {@link #stopLeftovers}). */
    static Path jvmHome() {
        return ROOT.resolve(String.valueOf(ProcessHandle.current().pid())).toAbsolutePath();
    }

    static TestServices start() {
        Path home = jvmHome();
        Path data = home.resolve("pg");
        try {
            Files.createDirectories(home);
            asPostgresOwner(home);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // stopped at exit even when a later step fails
        List<RedisServer> redis = new ArrayList<>();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            redis.forEach(RedisServer::stop);
            if (Files.exists(data.resolve("postmaster.pid"))) {
                pgCtl(data, "stop", "-m", "fast", "-s");
            }
            delete(home);
        }, "stop-test-services"));
        redis.add(RedisServer.start(home.resolve("redis")));
        int pgPort = startPostgres(home, data);
        TestServices services = new TestServices(TestServices.Origin.PRIVATE,
                new TestServices.Postgres(HOST, pgPort, USER, ""), new TestServices.Redis(HOST, redis.get(0).port()));
        services.createDatabaseIfMissing(TestServices.QUARKUS_DATABASE);
        services.createDatabaseIfMissing(TestServices.IT_DATABASE);
        return services;
    }

    private static int startPostgres(Path home, Path data) {
        run(List.of(bin("initdb"), "-D", data.toString(), "-U", USER, "-A", "trust", "-N", "-E", "UTF8",
                "--locale=C"), home.resolve("initdb.log"));
        // a free port can be taken between asking and binding: try a few
        for (int attempt = 1; ; attempt++) {
            int port = FreePorts.take();
            String options = "-p " + port + " -c listen_addresses=" + HOST + " -c unix_socket_directories=''"
                    + POSTGRES_SETTINGS.stream().map(setting -> " -c " + setting).collect(Collectors.joining());
            if (pgCtl(data, "start", "-w", "-t", "60", "-s", "-l", home.resolve("postgres.log").toString(), "-o",
                    options) == 0) {
                return port;
            }
            if (attempt == 3) {
                throw new IllegalStateException("The tests' PostgreSQL did not start; see " + home.resolve(
                        "postgres.log"));
            }
        }
    }

    /** Stops the servers of test JVMs that are gone, by the pids they left, and removes their folders. */
    static void stopLeftovers() {
        if (!Files.isDirectory(ROOT)) {
            return;
        }
        try (Stream<Path> homes = Files.list(ROOT)) {
            for (Path home : homes.toList()) {
                String name = home.getFileName().toString();
                if (!name.matches("\\d+") || ProcessHandle.of(Long.parseLong(name)).isPresent()) {
                    continue;
                }
                if (Files.exists(home.resolve("pg/postmaster.pid"))) {
                    pgCtl(home.resolve("pg"), "stop", "-m", "immediate", "-s");
                }
                try (Stream<Path> servers = Files.list(home)) {
                    servers.forEach(RedisServer::stopLeftover);
                }
                delete(home);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int pgCtl(Path data, String... args) {
        List<String> command = new ArrayList<>(List.of(bin("pg_ctl"), "-D", data.toString()));
        command.addAll(List.of(args));
        return exec(command, data.getParent().resolve("pg_ctl.log"));
    }

    private static void run(List<String> command, Path log) {
        if (exec(command, log) != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed; see " + log);
        }
    }

    /** Runs a PostgreSQL tool, as the postgres user when we are root; returns its exit code. */
    private static int exec(List<String> command, Path log) {
        List<String> full = new ArrayList<>();
        if (isRoot()) {
            full.addAll(List.of("runuser", "-u", USER, "--"));
        }
        full.addAll(command);
        try {
            Process p = new ProcessBuilder(full).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            return p.exitValue();
        } catch (IOException e) {
            throw new IllegalStateException("Could not run " + full.get(0) + " (PostgreSQL's server binaries are "
                    + "needed for the tests' private cluster, or set ORDERFLOW_TEST_* / run Docker)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String bin(String tool) {
        String configured = System.getenv("ORDERFLOW_TEST_PG_BIN");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured, tool).toString();
        }
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Optional<Path> newest = versions.filter(v -> v.getFileName().toString().matches("\\d+"))
                        .max(Comparator.comparingInt(v -> Integer.parseInt(v.getFileName().toString())));
                if (newest.isPresent() && Files.isExecutable(newest.get().resolve("bin").resolve(tool))) {
                    return newest.get().resolve("bin").resolve(tool).toString();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return tool;
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static void asPostgresOwner(Path dir) throws IOException {
        if (isRoot()) {
            UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(USER);
            Files.setOwner(dir, postgres);
        }
    }

    private static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a leftover folder is harmless: the next run removes it
        }
    }
}
