package io.orderflow.support;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every consumer of the test services gets its addresses from {@link TestServices} and nowhere else: with the
 * addresses the container path hands out (a Docker host and mapped ports), each of them — the Quarkus test
 * configuration, the JDBC helpers, the invariant checker, the fault proxies, the process-level tests' environment
 * and their Redis — points at exactly those.
 */
class TestServicesTest {

    private static final TestServices CONTAINERS = ContainerServices.addresses("docker-host.test", 49153, "test",
            "s3cret", "docker-host.test", 49154);

    @Test
    void shouldHandTheContainersAddressesToTheQuarkusTestConfiguration() {
        Map<String, String> config = TestServices.using(CONTAINERS, () -> TestServices.get().quarkusConfig());
        assertEquals(Map.of(
                "quarkus.datasource.reactive.url", "postgresql://docker-host.test:49153/orderflow_test",
                "quarkus.datasource.jdbc.url", "jdbc:postgresql://docker-host.test:49153/orderflow_test",
                "quarkus.datasource.username", "test",
                "quarkus.datasource.password", "s3cret",
                "quarkus.redis.hosts", "redis://docker-host.test:49154/3"), config);
    }

    @Test
    void shouldHandTheContainersAddressesToTheJdbcHelpersAndTheInvariantChecker() {
        assertAll(
                () -> assertEquals("jdbc:postgresql://docker-host.test:49153/orderflow_test",
                        TestServices.using(CONTAINERS, Sql::jdbcUrl)),
                () -> assertEquals("jdbc:postgresql://docker-host.test:49153/orderflow_test",
                        TestServices.using(CONTAINERS, () -> Sql.checker().url())),
                () -> assertEquals("jdbc:postgresql://docker-host.test:49153/orderflow_it",
                        TestServices.using(CONTAINERS, ItDatabase::jdbcUrl)),
                () -> assertEquals("jdbc:postgresql://docker-host.test:49153/orderflow_it",
                        TestServices.using(CONTAINERS, () -> ItDatabase.checker().url())),
                () -> assertEquals("test s3cret",
                        TestServices.using(CONTAINERS, () -> ItDatabase.user() + " " + ItDatabase.password())));
    }

    @Test
    void shouldHandTheContainersAddressesToTheProcessLevelTests() {
        Map<String, String> env = TestServices.using(CONTAINERS, ServiceProcess::baseEnvironment);
        assertAll(
                () -> assertEquals("postgresql://docker-host.test:49153/orderflow_it",
                        env.get("QUARKUS_DATASOURCE_REACTIVE_URL")),
                () -> assertEquals("jdbc:postgresql://docker-host.test:49153/orderflow_it",
                        env.get("QUARKUS_DATASOURCE_JDBC_URL")),
                () -> assertEquals("test", env.get("QUARKUS_DATASOURCE_USERNAME")),
                () -> assertEquals("s3cret", env.get("QUARKUS_DATASOURCE_PASSWORD")),
                () -> assertEquals("redis://docker-host.test:49154/2", env.get("QUARKUS_REDIS_HOSTS")),
                () -> assertEquals("redis://docker-host.test:49154/2", TestServices.using(CONTAINERS, RedisDb::url)));
    }

    @Test
    void shouldPutTheFaultProxiesInFrontOfTheContainers() {
        Map<String, String> config = FaultProxies.open(CONTAINERS);
        try {
            assertAll(
                    () -> assertEquals(InetSocketAddress.createUnresolved("docker-host.test", 49153).toString(),
                            FaultProxies.postgres.getConnectAddress().toString()),
                    () -> assertEquals(InetSocketAddress.createUnresolved("docker-host.test", 49154).toString(),
                            FaultProxies.redis.getConnectAddress().toString()),
                    () -> assertEquals("postgresql://127.0.0.1:" + FaultProxies.postgres.getBindAddress().getPort()
                            + "/orderflow_test", config.get("quarkus.datasource.reactive.url")),
                    () -> assertEquals("redis://127.0.0.1:" + FaultProxies.redis.getBindAddress().getPort() + "/3",
                            config.get("quarkus.redis.hosts")));
        } finally {
            new FaultProxies().stop();
        }
    }

    @Test
    void shouldPutTheRoundTripCounterInFrontOfTheContainers() {
        Map<String, String> config = WireRoundTrips.open(CONTAINERS);
        try {
            assertAll(
                    () -> assertEquals(InetSocketAddress.createUnresolved("docker-host.test", 49153).toString(),
                            WireRoundTrips.proxy().getConnectAddress().toString()),
                    () -> assertEquals("postgresql://127.0.0.1:" + WireRoundTrips.proxy().getBindAddress().getPort()
                            + "/orderflow_test", config.get("quarkus.datasource.reactive.url")));
        } finally {
            new WireRoundTrips().stop();
        }
    }

    /** Built, not started: the container runs with every setting the private cluster has. */
    @Test
    void shouldGiveTheContainerThePrivateClustersSettings() {
        List<String> command = List.of(ContainerServices.postgres().getCommandParts());
        assertEquals("postgres", command.get(0));
        for (String setting : List.of("max_connections=200", "fsync=off", "synchronous_commit=off",
                "full_page_writes=off")) {
            int at = command.indexOf(setting);
            assertTrue(at > 0 && command.get(at - 1).equals("-c"), setting + " in " + command);
        }
        assertEquals(PrivateServices.POSTGRES_SETTINGS.size() * 2 + 1, command.size(), "no other settings: " + command);
    }

    @Test
    void shouldTakeTheEnvironmentsAddressesOnlyWhenTheyAreSet() {
        assertNull(TestServices.fromEnvironment(Map.of()));
        TestServices named = TestServices.fromEnvironment(Map.of("ORDERFLOW_TEST_PG_HOST", "db.test",
                "ORDERFLOW_TEST_PG_PORT", "7432", "ORDERFLOW_TEST_REDIS", "redis://cache.test:7379"));
        assertEquals(new TestServices.Postgres("db.test", 7432, "postgres", ""), named.postgres());
        assertEquals(new TestServices.Redis("cache.test", 7379), named.redis());
        assertThrows(IllegalStateException.class,
                () -> TestServices.fromEnvironment(Map.of("ORDERFLOW_TEST_PG_HOST", "db.test")));
    }
}
