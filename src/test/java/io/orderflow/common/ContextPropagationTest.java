package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.context.SmallRyeThreadContext;
import io.smallrye.context.impl.ThreadContextProviderPlan;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.context.ThreadContext;
import org.eclipse.microprofile.context.spi.ThreadContextProvider;
import org.junit.jupiter.api.Test;

/**
 * Mutiny's operators capture no context around their callbacks: ArC's request context lives on the request's Vert.x
 * duplicated context, where every callback of the request runs, as does OpenTelemetry's, and no JTA transaction is
 * ever current (see application.properties). Capturing them cost a sixth of the service's CPU per write.
 */
@QuarkusTest
class ContextPropagationTest {

    @Test
    void shouldCaptureNoContextAroundMutinyCallbacks() {
        ThreadContextProviderPlan plan = SmallRyeThreadContext.getCurrentThreadContextOrDefaultContexts().getPlan();
        assertEquals(Set.of(), types(plan.propagatedProviders), "the contexts captured per callback");
        assertEquals(Set.of(), types(plan.clearedProviders), "the contexts cleared per callback");
        assertEquals(Set.of(ThreadContext.TRANSACTION, "OpenTelemetry"), types(plan.unchangedProviders),
                "the contexts left alone");
    }

    private static Set<String> types(Set<ThreadContextProvider> providers) {
        Set<String> types = new TreeSet<>();
        providers.forEach(provider -> types.add(provider.getThreadContextType()));
        return types;
    }
}
