package io.orderflow.payment;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.orderflow.payment.spi.ProviderOutcome;
import io.orderflow.support.InvariantChecker;
import io.orderflow.support.Sql;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
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

    private Instant started;

    @BeforeEach
    void resetProvider() {
        server = sandbox.server();
        restart();
        started = Instant.now().minusSeconds(1);
    }

    @AfterEach
    void checkTheOrdersOfTheTest() {
        Assertions.assertEquals(List.of(), violationsOfOrdersCreatedSince(started),
                "the invariant checker over the orders this test created");
    }

    /** The checker's violations over the orders created since {@code since} (tests of a class run one by one). */
    static List<InvariantChecker.Violation> violationsOfOrdersCreatedSince(
            Instant since) {
        List<String> ids = new ArrayList<>();
        try (Connection c = Sql.connect();
                PreparedStatement ps = c.prepareStatement("select cast(id as text) from orders"
                        + " where created_at >= ?")) {
            ps.setObject(1, OffsetDateTime.ofInstant(since, ZoneOffset.UTC));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return ids.isEmpty() ? List.of() : Sql.violations(ids);
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
