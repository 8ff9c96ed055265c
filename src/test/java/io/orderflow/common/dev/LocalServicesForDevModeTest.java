package io.orderflow.common.dev;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.FreePorts;
import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigValue;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.Test;

/** What dev mode is told about PostgreSQL and Redis, depending on what answers (the database path: docs/testing.md). */
class LocalServicesForDevModeTest {

    private static ConfigSourceContext context(List<String> profiles, Map<String, String> values) {
        return new ConfigSourceContext() {
            @Override
            public ConfigValue getValue(String name) {
                String value = values.get(name);
                return value == null ? null : ConfigValue.builder().withName(name).withValue(value).build();
            }

            @Override
            public Iterator<String> iterateNames() {
                return values.keySet().iterator();
            }

            @Override
            public List<String> getProfiles() {
                return profiles;
            }
        };
    }

    private static Map<String, String> configured(Iterable<ConfigSource> sources) {
        Map<String, String> all = new TreeMap<>();
        sources.forEach(source -> all.putAll(source.getProperties()));
        return all;
    }

    @Test
    void shouldConfigureNothingOutsideDevMode() {
        assertEquals(List.of(), new LocalServicesForDevMode().getConfigSources(context(List.of("prod"), Map.of())));
        assertEquals(List.of(), new LocalServicesForDevMode().getConfigSources(context(List.of("test"), Map.of())));
    }

    @Test
    void shouldLeaveBothToDevServicesWhenNothingAnswers() {
        Map<String, String> nobody = Map.of("orderflow.dev.postgres", "127.0.0.1:" + FreePorts.take(),
                "orderflow.dev.redis", "127.0.0.1:" + FreePorts.take());
        assertTrue(configured(new LocalServicesForDevMode().getConfigSources(context(List.of("dev"), nobody)))
                .isEmpty());
    }

    @Test
    void shouldUseARedisThatAnswersAndKeepDevServicesForTheMissingPostgres() throws IOException {
        try (ServerSocket redis = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Map<String, String> onlyRedis = Map.of("orderflow.dev.postgres", "127.0.0.1:" + FreePorts.take(),
                    "orderflow.dev.redis", "127.0.0.1:" + redis.getLocalPort());
            assertEquals(Map.of("quarkus.redis.hosts", "redis://127.0.0.1:" + redis.getLocalPort()),
                    configured(new LocalServicesForDevMode().getConfigSources(context(List.of("dev"), onlyRedis))));
        }
    }
}
