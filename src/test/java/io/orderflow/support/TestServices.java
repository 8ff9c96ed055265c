package io.orderflow.support;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The one PostgreSQL and the one Redis every test of this JVM talks to, decided once per JVM:
 * <ol>
 * <li>a Docker engine answers → Testcontainers start both ({@link ContainerServices});</li>
 * <li>else {@code ORDERFLOW_TEST_PG_HOST}/{@code _PG_PORT}/{@code _PG_USER}/{@code _PG_PASSWORD} and
 * {@code ORDERFLOW_TEST_REDIS} name servers the tests may use ({@link #fromEnvironment});</li>
 * <li>else a private PostgreSQL cluster and a private redis-server, started here on free ports and stopped when the
 * JVM exits ({@link PrivateServices}) — the default, so tests never touch anyone else's data.</li>
 * </ol>
 * The Quarkus test configuration, {@link Sql}, {@link ItDatabase}, the invariant checker, {@link FaultProxies},
 * {@link WireRoundTrips}, {@link RedisDb} and {@link ServiceProcess} all ask this object; nothing else in the tests
 * names a host or a port.
 * Surefire and failsafe run in separate JVMs, so each decides (and, by default, starts its own services) once.
 *
 * <p>The databases and Redis databases are the tests' own, named here (docs/testing.md lists them all):
 * PostgreSQL {@value #QUARKUS_DATABASE} and {@value #IT_DATABASE}, Redis databases {@value #QUARKUS_REDIS_DB} and
 * {@value #IT_REDIS_DB} — never Redis database 0.
 */
public final class TestServices {

    /** The {@code @QuarkusTest}s' database (created when missing). */
    public static final String QUARKUS_DATABASE = "orderflow_test";
    /** The process-level tests' database (dropped and created by MultiReplicaIT), also the invariant checker's scratch. */
    public static final String IT_DATABASE = "orderflow_it";
    /** The {@code @QuarkusTest}s' Redis database; tests empty it (FLUSHDB). */
    public static final int QUARKUS_REDIS_DB = 3;
    /** The process-level tests' Redis database; tests empty it (FLUSHDB). */
    public static final int IT_REDIS_DB = 2;

    public enum Origin {
        CONTAINERS, ENVIRONMENT, PRIVATE
    }

    public record Postgres(String host, int port, String user, String password) {

        public String jdbcUrl(String database) {
            return "jdbc:postgresql://" + host + ":" + port + "/" + database;
        }

        public String reactiveUrl(String database) {
            return "postgresql://" + host + ":" + port + "/" + database;
        }

        public Connection connect(String database) throws SQLException {
            return DriverManager.getConnection(jdbcUrl(database), user, password);
        }
    }

    public record Redis(String host, int port) {

        public String url(int database) {
            return "redis://" + host + ":" + port + "/" + database;
        }
    }

    private static final String DECIDED = "orderflow.test.services.decided";
    private static final String FAILED = "failed: ";
    /** A unit test may look at the consumers through another instance, on its own thread only. */
    private static final ThreadLocal<TestServices> OVERRIDE = new ThreadLocal<>();

    private final Origin origin;
    private final Postgres postgres;
    private final Redis redis;

    TestServices(Origin origin, Postgres postgres, Redis redis) {
        this.origin = origin;
        this.postgres = postgres;
        this.redis = redis;
    }

    /** The services of this JVM, decided (and, where needed, started) on the first call. */
    public static TestServices get() {
        TestServices override = OVERRIDE.get();
        if (override != null) {
            return override;
        }
        // Quarkus loads test classes anew for each application it starts, so the decision lives in a system
        // property: one per JVM, whichever class loader asks
        synchronized (System.getProperties()) {
            String shared = System.getProperty(DECIDED);
            if (shared == null) {
                try {
                    TestServices services = decide();
                    System.setProperty(DECIDED, services.encode());
                    System.out.println("[test-services] " + services);
                    return services;
                } catch (RuntimeException e) {
                    // decided once, failure included: no second attempt may start servers again
                    System.setProperty(DECIDED, FAILED + e);
                    throw e;
                }
            }
            if (shared.startsWith(FAILED)) {
                throw new IllegalStateException("The test services could not be started: "
                        + shared.substring(FAILED.length()));
            }
            return decode(shared);
        }
    }

    private String encode() {
        return String.join("\n", origin.name(), postgres.host(), String.valueOf(postgres.port()), postgres.user(),
                postgres.password(), redis.host(), String.valueOf(redis.port()));
    }

    private static TestServices decode(String encoded) {
        String[] f = encoded.split("\n", -1);
        return new TestServices(Origin.valueOf(f[0]), new Postgres(f[1], Integer.parseInt(f[2]), f[3], f[4]),
                new Redis(f[5], Integer.parseInt(f[6])));
    }

    /** Runs {@code consumer} with {@code services} standing in for this JVM's, on the calling thread only. */
    static <T> T using(TestServices services, Supplier<T> consumer) {
        OVERRIDE.set(services);
        try {
            return consumer.get();
        } finally {
            OVERRIDE.remove();
        }
    }

    private static TestServices decide() {
        PrivateServices.stopLeftovers();
        if (ContainerServices.dockerAvailable()) {
            return ContainerServices.start();
        }
        TestServices configured = fromEnvironment(System.getenv());
        return configured != null ? configured : PrivateServices.start();
    }

    /** The servers named by ORDERFLOW_TEST_* variables, or null when none is set. */
    static TestServices fromEnvironment(Map<String, String> env) {
        String pgHost = env.get("ORDERFLOW_TEST_PG_HOST");
        String pgPort = env.get("ORDERFLOW_TEST_PG_PORT");
        String redisUrl = env.get("ORDERFLOW_TEST_REDIS");
        if (isBlank(pgHost) && isBlank(pgPort) && isBlank(redisUrl)) {
            return null;
        }
        if (isBlank(pgPort) || isBlank(redisUrl)) {
            throw new IllegalStateException("Set both ORDERFLOW_TEST_PG_PORT and ORDERFLOW_TEST_REDIS (e.g. "
                    + "redis://127.0.0.1:7000), or none of the ORDERFLOW_TEST_* variables for private services");
        }
        URI redis = URI.create(redisUrl);
        return new TestServices(Origin.ENVIRONMENT,
                new Postgres(isBlank(pgHost) ? "127.0.0.1" : pgHost, Integer.parseInt(pgPort.trim()),
                        env.getOrDefault("ORDERFLOW_TEST_PG_USER", "postgres"),
                        env.getOrDefault("ORDERFLOW_TEST_PG_PASSWORD", "")),
                new Redis(redis.getHost(), redis.getPort()));
    }

    public Origin origin() {
        return origin;
    }

    public Postgres postgres() {
        return postgres;
    }

    public Redis redis() {
        return redis;
    }

    /** What the {@code @QuarkusTest}s' application gets (see {@link TestServicesResource}). */
    public Map<String, String> quarkusConfig() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("quarkus.datasource.reactive.url", postgres.reactiveUrl(QUARKUS_DATABASE));
        config.put("quarkus.datasource.jdbc.url", postgres.jdbcUrl(QUARKUS_DATABASE));
        config.put("quarkus.datasource.username", postgres.user());
        config.put("quarkus.datasource.password", postgres.password());
        config.put("quarkus.redis.hosts", redis.url(QUARKUS_REDIS_DB));
        return config;
    }

    /** Creates {@code database} on the test PostgreSQL unless it exists. */
    public void createDatabaseIfMissing(String database) {
        try (Connection c = postgres.connect("postgres");
                PreparedStatement exists = c.prepareStatement("select 1 from pg_database where datname = ?")) {
            exists.setString(1, database);
            try (ResultSet rs = exists.executeQuery()) {
                if (!rs.next()) {
                    c.createStatement().execute("create database " + database);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("The test PostgreSQL (" + this + ") refused: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return origin + ": PostgreSQL " + postgres.host() + ":" + postgres.port() + ", Redis " + redis.host() + ":"
                + redis.port();
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }
}
