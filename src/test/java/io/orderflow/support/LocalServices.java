package io.orderflow.support;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * Real PostgreSQL and Redis for the tests. Where a Docker engine runs, Testcontainers starts both; where none
 * does (our machines and CI), the tests use the services on 127.0.0.1 — PostgreSQL in its own database
 * {@code orderflow_test}, created here when missing. Addresses can be overridden with ORDERFLOW_TEST_PG_HOST/PORT
 * and ORDERFLOW_TEST_REDIS.
 */
public class LocalServices implements QuarkusTestResourceLifecycleManager {

    /** {@code orderflow_test}, or the system property {@code orderflow.test.database} (e.g. one per branch). */
    public static final String DATABASE = System.getProperty("orderflow.test.database", "orderflow_test");

    private PostgreSQLContainer postgres;
    private GenericContainer<?> redis;

    @Override
    public Map<String, String> start() {
        if (dockerAvailable()) {
            postgres = new PostgreSQLContainer("postgres:15-alpine").withDatabaseName(DATABASE);
            postgres.start();
            redis = new GenericContainer<>("redis:7-alpine").withExposedPorts(6379);
            redis.start();
            String hostPort = postgres.getHost() + ":" + postgres.getMappedPort(5432);
            return config(hostPort, postgres.getUsername(), postgres.getPassword(),
                    "redis://" + redis.getHost() + ":" + redis.getMappedPort(6379));
        }
        String hostPort = env("ORDERFLOW_TEST_PG_HOST", "127.0.0.1") + ":" + env("ORDERFLOW_TEST_PG_PORT", "5432");
        createDatabaseIfMissing(hostPort);
        return config(hostPort, "postgres", "", env("ORDERFLOW_TEST_REDIS", "redis://127.0.0.1:6379"));
    }

    @Override
    public void stop() {
        if (postgres != null) {
            postgres.stop();
        }
        if (redis != null) {
            redis.stop();
        }
    }

    /** JDBC URL of the test database, for tests that count rows. */
    public static String jdbcUrl() {
        return "jdbc:postgresql://" + env("ORDERFLOW_TEST_PG_HOST", "127.0.0.1") + ":"
                + env("ORDERFLOW_TEST_PG_PORT", "5432") + "/" + DATABASE;
    }

    private static Map<String, String> config(String hostPort, String user, String password, String redisUrl) {
        return Map.of(
                "quarkus.datasource.reactive.url", "postgresql://" + hostPort + "/" + DATABASE,
                "quarkus.datasource.jdbc.url", "jdbc:postgresql://" + hostPort + "/" + DATABASE,
                "quarkus.datasource.username", user,
                "quarkus.datasource.password", password,
                "quarkus.redis.hosts", redisUrl);
    }

    private static boolean dockerAvailable() {
        // ask Testcontainers only where an engine may exist; it logs an error on every machine without one
        boolean maybe = System.getenv("DOCKER_HOST") != null
                || java.nio.file.Files.exists(java.nio.file.Path.of("/var/run/docker.sock"));
        if (!maybe) {
            return false;
        }
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    private static void createDatabaseIfMissing(String hostPort) {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + hostPort + "/postgres", "postgres", "");
                ResultSet rs = c.createStatement().executeQuery(
                        "select 1 from pg_database where datname = '" + DATABASE + "'")) {
            if (!rs.next()) {
                c.createStatement().execute("create database " + DATABASE);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL is not reachable at " + hostPort
                    + " (start it, or run the tests where Docker is available)", e);
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
