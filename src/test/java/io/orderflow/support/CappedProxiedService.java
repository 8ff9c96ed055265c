package io.orderflow.support;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.List;
import java.util.Map;

/**
 * One application for the edge and fault tests that need more than the default one: at most
 * {@value #MAX_CONNECTIONS} open connections, a body cut {@value #BODY_TIMEOUT} after its headers, webhook URLs held
 * to public addresses as in production (the tests elsewhere deliver to receivers on loopback), and PostgreSQL and
 * Redis behind TCP proxies that a test can close. Shared, so it starts once.
 */
public class CappedProxiedService implements QuarkusTestProfile {

    public static final int MAX_CONNECTIONS = 300;
    public static final String BODY_TIMEOUT = "2s";

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.http.limits.max-connections", String.valueOf(MAX_CONNECTIONS),
                "orders.http.body-timeout", BODY_TIMEOUT, "events.webhooks.allow-private-targets", "false");
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(FaultProxies.class));
    }
}
