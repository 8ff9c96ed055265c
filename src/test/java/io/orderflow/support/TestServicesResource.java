package io.orderflow.support;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * Points every {@code @QuarkusTest} application at {@link TestServices} (declared here once, it applies to all of
 * them). The services live as long as the JVM, across the applications that test profiles restart, so stop() has
 * nothing to do.
 */
@QuarkusTestResource(TestServicesResource.class)
public class TestServicesResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        return TestServices.get().quarkusConfig();
    }

    @Override
    public void stop() {
        // the services outlive this application: TestServices stops them when the JVM exits
    }
}
