package io.orderflow.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.redis.client.RedisOptions;
import jakarta.inject.Inject;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.postgresql.PGProperty;

/**
 * The running service really talks to the servers {@link TestServices} chose (asked through its own connections),
 * and by default those are private servers on ports of their own, never the machine's shared ones.
 */
@QuarkusTest
class TestServicesInUseTest {

    @Inject
    Pool pool;

    @Inject
    RedisDataSource redis;

    @Test
    void shouldConnectTheServiceToTheTestPostgresqlAndItsOwnDatabase() {
        var row = pool.query("select inet_server_port(), current_database()").executeAndAwait().iterator().next();
        assertEquals(TestServices.get().postgres().port(), row.getInteger(0));
        assertEquals(TestServices.QUARKUS_DATABASE, row.getString(1));
    }

    @Test
    void shouldConnectTheServiceToTheTestRedisAndItsOwnDatabase() {
        String info = redis.execute("CLIENT", "INFO").toString();
        assertEquals(String.valueOf(TestServices.QUARKUS_REDIS_DB), field(info, "db"));
        String port = redis.execute("CONFIG", "GET", "port").get("port").toString();
        assertEquals(TestServices.get().redis().port(), Integer.parseInt(port));
    }

    @Test
    void shouldRunPrivateServicesOnOtherPortsThanTheMachinesOwn() {
        assumeTrue(TestServices.get().origin() == TestServices.Origin.PRIVATE, "only the private services' ports are ours");
        int defaultPostgres = Integer.parseInt(PGProperty.PG_PORT.getDefaultValue());
        int defaultRedis = URI.create(RedisOptions.DEFAULT_ENDPOINT).getPort();
        assertNotEquals(defaultPostgres, TestServices.get().postgres().port());
        assertNotEquals(defaultRedis, TestServices.get().redis().port());
    }

    private static String field(String clientInfo, String name) {
        for (String pair : clientInfo.trim().split(" ")) {
            if (pair.startsWith(name + "=")) {
                return pair.substring(name.length() + 1);
            }
        }
        return null;
    }
}
