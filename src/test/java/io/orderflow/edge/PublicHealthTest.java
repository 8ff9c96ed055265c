package io.orderflow.edge;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.support.CappedProxiedService;
import io.orderflow.support.FaultProxies;
import io.orderflow.support.Management;
import io.orderflow.support.PublicHealth;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The public health output with PostgreSQL or Redis unreachable (their TCP proxies closed): readiness says what
 * is down, never why.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(CappedProxiedService.class)
class PublicHealthTest {

    @AfterEach
    void reopen() {
        if (!FaultProxies.postgres.isOpen()) {
            FaultProxies.postgres.open();
        }
        if (!FaultProxies.redis.isOpen()) {
            FaultProxies.redis.open();
        }
    }

    @Test
    void shouldSayPostgresIsDegradedWithoutNamingAnyFailureAndStayReady() {
        FaultProxies.postgres.close();
        Management.given().get("/q/health/ready").then().statusCode(200);
        assertEquals(Map.of("postgresql", "degraded"),
                PublicHealth.assertNamesNoFailure().get("/q/health/ready database"));
    }

    @Test
    void shouldSayRedisIsDegradedWithoutNamingAnyFailure() {
        FaultProxies.redis.close();
        Management.given().get("/q/health/ready").then().statusCode(200);
        assertEquals(Map.of("redis", "degraded"),
                PublicHealth.assertNamesNoFailure().get("/q/health/ready idempotency-fast-path"));
    }

    @Test
    void shouldReportEverythingUpAsStatesOnly() {
        Management.given().get("/q/health/ready").then().statusCode(200);
        Map<String, Map<String, Object>> checks = PublicHealth.assertNamesNoFailure();
        assertEquals(Map.of("postgresql", "up"), checks.get("/q/health/ready database"));
        assertEquals(Map.of("redis", "up"), checks.get("/q/health/ready idempotency-fast-path"));
    }
}
