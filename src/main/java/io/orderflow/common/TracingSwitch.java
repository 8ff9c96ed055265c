package io.orderflow.common;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Tracing is off unless an OTLP endpoint is configured: application.properties ships
 * {@code quarkus.otel.sdk.disabled=true} (no Vert.x tracer, no span anywhere), and this source turns the SDK on when
 * {@code quarkus.otel.exporter.otlp.endpoint} or {@code quarkus.otel.exporter.otlp.traces.endpoint} is set, so an
 * operator needs one environment variable and no rebuild (docs/operations.md#tracing). An explicit
 * {@code QUARKUS_OTEL_SDK_DISABLED} still wins either way: the environment ranks above this source.
 */
public class TracingSwitch implements ConfigSourceFactory {

    static final String SDK_DISABLED = "quarkus.otel.sdk.disabled";
    static final List<String> ENDPOINTS = List.of("quarkus.otel.exporter.otlp.traces.endpoint",
            "quarkus.otel.exporter.otlp.endpoint");
    /** Above application.properties (250), below the .env file (295), the environment (300) and system properties. */
    private static final int ORDINAL = 260;
    /**
     * The lowest ordinal of a value someone configured (microprofile-config.properties' 100): the OpenTelemetry
     * extension registers {@code http://localhost:4317/} as the endpoint's default, in a source ranked far below.
     */
    private static final int CONFIGURED = 100;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        for (String endpoint : ENDPOINTS) {
            ConfigValue value = context.getValue(endpoint);
            if (value != null && value.getValue() != null && !value.getValue().isBlank()
                    && value.getConfigSourceOrdinal() >= CONFIGURED) {
                return List.of(new PropertiesConfigSource(Map.of(SDK_DISABLED, "false"),
                        "orderflow tracing switch (" + endpoint + " is set)", ORDINAL));
            }
        }
        return List.of();
    }
}
