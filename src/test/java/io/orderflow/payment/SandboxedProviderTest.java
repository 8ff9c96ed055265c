package io.orderflow.payment;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the outbound tests of every provider share: the sandbox server, emptied before each test, and the provider's
 * circuit breaker closed again, so that one test's failures never open it for the next.
 */
public abstract class SandboxedProviderTest {

    @PaymentSandbox.InjectSandbox
    protected PaymentSandbox.Sandbox sandbox;

    @Inject
    protected CircuitBreakerMaintenance breakers;

    protected WireMockServer server;

    /** The provider under test, whose breaker is reset. */
    protected abstract String provider();

    @BeforeEach
    void resetProvider() {
        server = sandbox.server();
        restart();
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
