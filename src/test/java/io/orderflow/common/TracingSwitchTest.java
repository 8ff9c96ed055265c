package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.net.URL;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Whether the packaged service traces, from its environment: the shipped application.properties, the extension's
 * default endpoint and this switch, ranked as in the running service (application.properties 250, environment 300).
 */
class TracingSwitchTest {

    private static boolean sdkDisabled(Map<String, String> environment) throws IOException {
        URL shipped = TracingSwitchTest.class.getClassLoader().getResource("application.properties");
        assertNotNull(shipped, "application.properties on the class path");
        // the OpenTelemetry extension's default for the endpoint, as its config builder registers it
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withDefaultValue("quarkus.otel.exporter.otlp.endpoint", "http://localhost:4317/")
                .withSources(new PropertiesConfigSource(shipped, 250))
                .withSources(new EnvConfigSource(environment, 300)).withSources(new TracingSwitch()).build();
        return config.getValue(TracingSwitch.SDK_DISABLED, Boolean.class);
    }

    @Test
    void shouldShipWithTracingOff() throws IOException {
        assertEquals(true, sdkDisabled(Map.of()));
    }

    @Test
    void shouldTraceOnceAnOtlpEndpointIsConfigured() throws IOException {
        assertEquals(false, sdkDisabled(Map.of("QUARKUS_OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4317")));
        assertEquals(false, sdkDisabled(Map.of("QUARKUS_OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                "http://collector:4317")));
    }

    @Test
    void shouldLetAnExplicitSwitchWinOverTheEndpoint() throws IOException {
        assertEquals(true, sdkDisabled(Map.of("QUARKUS_OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4317",
                "QUARKUS_OTEL_SDK_DISABLED", "true")));
        assertEquals(false, sdkDisabled(Map.of("QUARKUS_OTEL_SDK_DISABLED", "false")));
    }

    @Test
    void shouldIgnoreABlankEndpoint() throws IOException {
        assertEquals(true, sdkDisabled(Map.of("QUARKUS_OTEL_EXPORTER_OTLP_ENDPOINT", " ")));
    }
}
