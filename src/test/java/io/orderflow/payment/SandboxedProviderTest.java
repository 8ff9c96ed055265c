package io.orderflow.payment;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.orderflow.payment.spi.ProviderOutcome;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the outbound tests of every provider share: the sandbox server, emptied before each test, and the provider's
 * circuit breaker closed again, so that one test's failures never open it for the next; after each test, the
 * invariant checker over every order the test created.
 */
public abstract class SandboxedProviderTest {

    @PaymentSandbox.InjectSandbox
    protected PaymentSandbox.Sandbox sandbox;

    @Inject
    protected CircuitBreakerMaintenance breakers;

    protected WireMockServer server;

    /** The provider under test, whose breaker is reset. */
    protected abstract String provider();

    private java.time.Instant started;

    @BeforeEach
    void resetProvider() {
        server = sandbox.server();
        restart();
        started = java.time.Instant.now().minusSeconds(1);
    }

    @org.junit.jupiter.api.AfterEach
    void checkTheOrdersOfTheTest() {
        org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of(), violationsOfOrdersCreatedSince(started),
                "the invariant checker over the orders this test created");
    }

    /** The checker's violations over the orders created since {@code since} (tests of a class run one by one). */
    static java.util.List<io.orderflow.support.InvariantChecker.Violation> violationsOfOrdersCreatedSince(
            java.time.Instant since) {
        java.util.List<String> ids = new java.util.ArrayList<>();
        try (java.sql.Connection c = io.orderflow.support.Sql.connect();
                java.sql.PreparedStatement ps = c.prepareStatement("select cast(id as text) from orders"
                        + " where created_at >= ?")) {
            ps.setObject(1, java.time.OffsetDateTime.ofInstant(since, java.time.ZoneOffset.UTC));
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        return ids.isEmpty() ? java.util.List.of() : io.orderflow.support.Sql.violations(ids);
    }

    /** Forgets every stub and request, and closes the breaker. */
    protected void restart() {
        server.resetAll();
        breakers.reset(provider());
    }

    protected static <T> ProviderOutcome<T> await(Uni<ProviderOutcome<T>> call) {
        return call.await().atMost(Duration.ofSeconds(30));
    }
}
