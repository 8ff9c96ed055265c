package io.orderflow.support;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * Real TCP proxies (NetCrusher) between the service and PostgreSQL / Redis, so a test can cut, freeze and restore
 * the service's connections. Flyway still migrates over a direct JDBC connection. PostgreSQL is told to check for
 * vanished clients every 100 ms while a statement runs, as production servers should be.
 */
public class FaultProxies implements QuarkusTestResourceLifecycleManager {

    /** Statements allowed to wait at once in the proxied service; more are shed with 503. */
    public static final int MAX_PENDING = 8;

    public static TcpCrusher postgres;
    public static TcpCrusher redis;
    private static NioReactor reactor;

    @Override
    public Map<String, String> start() {
        try {
            reactor = new NioReactor();
            postgres = proxy(5432);
            redis = proxy(6379);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        Sql.update("alter database " + LocalServices.DATABASE + " set client_connection_check_interval = '100ms'");
        return Map.of(
                "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + postgres.getBindAddress().getPort()
                        + "/" + LocalServices.DATABASE,
                "quarkus.redis.hosts", "redis://127.0.0.1:" + redis.getBindAddress().getPort(),
                "orders.database.statement-timeout", "1500ms",
                "orders.database.max-pending", String.valueOf(MAX_PENDING));
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

    private static TcpCrusher proxy(int targetPort) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        return TcpCrusherBuilder.builder().withReactor(reactor).withBindAddress("127.0.0.1", port)
                .withConnectAddress("127.0.0.1", targetPort).buildAndOpen();
    }
}
