package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertNull;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.Vertx;
import io.vertx.core.impl.VertxInternal;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Tracing as shipped costs the hot path nothing in Vert.x: with the SDK disabled Quarkus gives Vert.x no tracer, so
 * the HTTP server, the SQL client and the Redis client skip every tracing hook (docs/operations.md#tracing).
 */
@QuarkusTest
class TracingOffTest {

    @Inject
    Vertx vertx;

    @Test
    void shouldGiveVertxNoTracerWhileTracingIsOff() {
        assertNull(((VertxInternal) vertx).tracer(), "Vert.x's tracer");
    }
}
