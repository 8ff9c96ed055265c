package io.orderflow.common.dev;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Dev mode only: {@code ./mvnw quarkus:dev} needs nothing but running services. When PostgreSQL and Redis answer on
 * their usual local addresses, the service uses them (and creates its database there if it is missing, which
 * Flyway cannot do); when they do not, nothing is configured here and Quarkus Dev Services start both in Docker.
 * Other profiles are untouched: production takes its addresses from the environment, tests from TestServices.
 *
 * <p>The addresses probed are {@code orderflow.dev.postgres} (127.0.0.1:5432) and {@code orderflow.dev.redis}
 * (127.0.0.1:6379); whatever application.properties or the environment sets for the datasource or Redis wins. The
 * probe logs in as {@code quarkus.datasource.username} with {@code quarkus.datasource.password}, so a server that asks
 * for a password (a fresh Debian's does on 127.0.0.1) is used with {@code QUARKUS_DATASOURCE_PASSWORD} from the
 * environment, as the service itself then is.
 */
public class LocalServicesForDevMode implements ConfigSourceFactory {

    private static final Logger LOG = Logger.getLogger(LocalServicesForDevMode.class.getName());
    static final String DATABASE = "orderflow";
    /** Below application.properties (250) and the environment: explicit settings always win. */
    private static final int ORDINAL = 200;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        if (!context.getProfiles().contains("dev")) {
            return List.of();
        }
        Map<String, String> found = new LinkedHashMap<>();
        String postgres = value(context, "orderflow.dev.postgres", "127.0.0.1:5432");
        if (answers(postgres) && databaseReady(postgres, value(context, "quarkus.datasource.username", "postgres"),
                value(context, "quarkus.datasource.password", ""))) {
            found.put("quarkus.datasource.reactive.url", "postgresql://" + postgres + "/" + DATABASE);
            found.put("quarkus.datasource.jdbc.url", "jdbc:postgresql://" + postgres + "/" + DATABASE);
        }
        String redis = value(context, "orderflow.dev.redis", "127.0.0.1:6379");
        if (answers(redis)) {
            found.put("quarkus.redis.hosts", "redis://" + redis);
        }
        if (found.size() == 3) {
            // both found: nothing for Dev Services to do, and no Docker probe (it logs an ERROR where none runs)
            found.put("quarkus.devservices.enabled", "false");
        }
        return List.of(new PropertiesConfigSource(found, "orderflow local services (dev mode)", ORDINAL));
    }

    private static String value(ConfigSourceContext context, String name, String fallback) {
        ConfigValue value = context.getValue(name);
        return value == null || value.getValue() == null || value.getValue().isBlank() ? fallback : value.getValue();
    }

    private static boolean answers(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(hostPort.substring(0, colon),
                    Integer.parseInt(hostPort.substring(colon + 1))), 300);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Creates the dev database unless it exists; false (Dev Services then) when the server refuses us. */
    private static boolean databaseReady(String hostPort, String user, String password) {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + hostPort + "/postgres", user,
                password); PreparedStatement exists = c.prepareStatement("select 1 from pg_database where datname = ?")) {
            exists.setString(1, DATABASE);
            try (ResultSet rs = exists.executeQuery()) {
                if (!rs.next()) {
                    try (Statement create = c.createStatement()) {
                        create.execute("create database " + DATABASE);
                    }
                    LOG.info("Created the database " + DATABASE + " on " + hostPort);
                }
            }
            return true;
        } catch (SQLException e) {
            LOG.warning("PostgreSQL on " + hostPort + " refused the dev connection as " + user + " ("
                    + e.getMessage() + "); leaving the datasource to Dev Services. To use this server, export "
                    + "QUARKUS_DATASOURCE_PASSWORD (and QUARKUS_DATASOURCE_USERNAME) or trust 127.0.0.1 in pg_hba.conf");
            return false;
        }
    }
}
