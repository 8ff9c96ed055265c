package io.orderflow.process;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.support.ItDatabase;
import io.orderflow.support.ServiceProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The packaged jar in the prod profile: health and metrics on the management port only, the API document on the
 * public port, the Swagger UI off.
 */
class ManagementInterfaceIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void shouldServeHealthAndMetricsOnlyOnTheManagementPortInProdMode() throws Exception {
        ItDatabase.createIfMissing();
        ServiceProcess service = ServiceProcess.start("ManagementInterfaceIT",
                Map.of(ServiceProcess.JSON_LOGS, ServiceProcess.AS_SHIPPED)).awaitReady();
        try {
            String started = service.logText().lines().filter(line -> line.contains("Listening on")).findFirst()
                    .orElseThrow();
            JsonNode line = new ObjectMapper().readTree(started);
            assertEquals("INFO", line.path("level").asText(), "the prod console is JSON: " + started);
            assertTrue(line.path("message").asText().contains("Listening on"), started);
            assertAll(
                    () -> assertEquals(404, status(service.uri("/q/metrics")), "public /q/metrics"),
                    () -> assertEquals(404, status(service.uri("/q/health/ready")), "public /q/health/ready"),
                    () -> assertEquals(404, status(service.uri("/q/swagger-ui/")), "Swagger UI in prod"),
                    () -> assertEquals(200, status(service.uri("/q/openapi")), "public /q/openapi"),
                    () -> assertEquals(200, status(service.managementUri("/q/health/ready")), "management health"),
                    () -> assertTrue(body(service.managementUri("/q/metrics")).contains("orderflow_transitions_total"),
                            "management /q/metrics"));
        } finally {
            service.stop();
        }
    }

    private static int status(URI uri) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static String body(URI uri) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }
}
