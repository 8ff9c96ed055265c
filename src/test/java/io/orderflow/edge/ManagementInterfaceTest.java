package io.orderflow.edge;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;

import io.orderflow.support.Management;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * Health and metrics are for the kubelet and Prometheus: they are served on the management interface, never on the
 * public port the Ingress routes, while the API document stays public for the shops that integrate against it.
 * (The management interface is a build-time choice, so this holds in prod mode as in tests; ManagementInterfaceIT
 * checks the packaged jar.)
 */
@QuarkusTest
class ManagementInterfaceTest {

    @Test
    void shouldAnswer404ForMetricsAndHealthOnThePublicPort() {
        for (String path : new String[] {"/q/metrics", "/q/health", "/q/health/ready", "/q/health/live"}) {
            given().get(path).then().statusCode(404);
        }
    }

    @Test
    void shouldServeMetricsAndHealthOnTheManagementPort() {
        Management.given().get("/q/health/ready").then().statusCode(200);
        Management.given().get("/q/health/live").then().statusCode(200);
        Management.given().get("/q/metrics").then().statusCode(200)
                .body(containsString("jvm_memory_used_bytes"));
    }

    @Test
    void shouldKeepTheApiDocumentOnThePublicPort() {
        given().get("/q/openapi").then().statusCode(200).body(containsString("openapi"));
        Management.given().get("/q/openapi").then().statusCode(404);
    }
}
