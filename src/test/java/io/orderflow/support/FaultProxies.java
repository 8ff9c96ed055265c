package io.orderflow.support;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * Real TCP proxies (NetCrusher) between the service and the test PostgreSQL / Redis ({@link TestServices}), so a test can cut, freeze and restore
 * the service's connections. Flyway still migrates over a direct JDBC connection. PostgreSQL is told to check for
 * vanished clients every 100 ms while a statement runs, as production servers should be.
 */
public class FaultProxies implements QuarkusTestResourceLifecycleManager {

    /** Statements allowed to wait at once in the proxied service; more are shed with 503. */
    public static final int MAX_PENDING = 8;

    private static final String LOOPBACK = "127.0.0.1";

    public static TcpCrusher postgres;
    public static TcpCrusher redis;
    private static NioReactor reactor;

    @Override
    public Map<String, String> start() {
        Map<String, String> config = open(TestServices.get());
        Sql.update("alter database " + TestServices.QUARKUS_DATABASE
                + " set client_connection_check_interval = '100ms'");
        return config;
    }

    /** Opens a proxy in front of each of the services; returns the configuration that sends the service through them. */
    static Map<String, String> open(TestServices services) {
        try {
            reactor = new NioReactor();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        postgres = proxy(services.postgres().host(), services.postgres().port());
        redis = proxy(services.redis().host(), services.redis().port());
        TestServices.Postgres pg = new TestServices.Postgres(LOOPBACK, postgres.getBindAddress().getPort(),
                services.postgres().user(), services.postgres().password());
        TestServices.Redis cache = new TestServices.Redis(LOOPBACK, redis.getBindAddress().getPort());
        return Map.of(
                "quarkus.datasource.reactive.url", pg.reactiveUrl(TestServices.QUARKUS_DATABASE),
                "quarkus.redis.hosts", cache.url(TestServices.QUARKUS_REDIS_DB),
                "orders.database.statement-timeout", "1500ms",
                "orders.database.max-pending", String.valueOf(MAX_PENDING));
    }

    /**
     * Opens and unfreezes the PostgreSQL proxy again, whatever a test left it as, and returns once the service has
     * stopped opening connections through it. A test that froze PostgreSQL leaves the pool connecting for the waiters
     * it abandoned at their timeouts; NetCrusher 0.10 pairs a connection it accepted just before {@code close()} with
     * PostgreSQL after {@code close()} returned, so the next test's "PostgreSQL is down" could still reach it.
     */
    public static void restorePostgres() {
        if (!postgres.isOpen()) {
            postgres.open();
        }
        if (postgres.isFrozen()) {
            postgres.unfreeze();
        }
        awaitNoNewConnections(postgres);
    }

    /** Waits (up to 10 s) until {@code proxy} has accepted no connection for 300 ms. */
    private static void awaitNoNewConnections(TcpCrusher proxy) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int accepted = proxy.getClientTotalCount();
        int quietPolls = 0;
        while (quietPolls < 3 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            int now = proxy.getClientTotalCount();
            quietPolls = now == accepted ? quietPolls + 1 : 0;
            accepted = now;
        }
    }

    /**
     * Locks the order's row in an open transaction on a connection of its own (not through the proxy), so the
     * service's compare-and-set on it waits until the caller rolls back; the caller closes the connection.
     */
    public static Connection lockOrder(String id) throws SQLException {
        Connection c = Sql.connect();
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("select 1 from orders where id = ? for update")) {
            ps.setObject(1, UUID.fromString(id));
            ps.executeQuery();
        }
        return c;
    }

    @Override
    public void stop() {
        if (postgres != null) {
            postgres.close();
        }
        if (redis != null) {
            redis.close();
        }
        if (reactor != null) {
            reactor.close();
        }
    }

    private static TcpCrusher proxy(String targetHost, int targetPort) {
        return TcpCrusherBuilder.builder().withReactor(reactor).withBindAddress(LOOPBACK, FreePorts.take())
                .withConnectAddress(targetHost, targetPort).buildAndOpen();
    }
}
