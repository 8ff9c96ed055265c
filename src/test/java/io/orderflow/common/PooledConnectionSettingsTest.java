package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * Every connection of the service's pool starts with the session settings {@link PostgresPoolCreator} gives it,
 * asked of PostgreSQL on each of them: as many connections held at once as the pool may open, so none is left out.
 */
@QuarkusTest
class PooledConnectionSettingsTest {

    @Inject
    Pool pool;

    @Inject
    DbConfig config;

    @Test
    void shouldStartEveryPooledConnectionWithTheStatementAndIdleInTransactionTimeoutsAndNoJit() {
        List<SqlConnection> held = new ArrayList<>();
        try {
            int maxSize = ConfigProvider.getConfig().getValue("quarkus.datasource.reactive.max-size", Integer.class);
            for (int i = 0; i < maxSize; i++) {
                held.add(pool.getConnection().await().indefinitely());
            }
            for (SqlConnection connection : held) {
                var row = connection.query("select current_setting('statement_timeout'),"
                        + " current_setting('idle_in_transaction_session_timeout'), pg_backend_pid(),"
                        + " current_setting('jit')")
                        .executeAndAwait().iterator().next();
                assertEquals(postgres(config.statementTimeout().toMillis()), row.getString(0),
                        "statement_timeout of backend " + row.getInteger(2));
                assertEquals(postgres(config.idleInTransactionTimeout().toMillis()), row.getString(1),
                        "idle_in_transaction_session_timeout of backend " + row.getInteger(2));
                assertEquals("off", row.getString(3), "jit of backend " + row.getInteger(2));
            }
        } finally {
            held.forEach(connection -> connection.close().await().indefinitely());
        }
    }

    /** How PostgreSQL shows a duration set in milliseconds: "5s", "30s", "1500ms". */
    private static String postgres(long millis) {
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}
