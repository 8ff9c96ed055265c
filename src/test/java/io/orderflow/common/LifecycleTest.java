package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.support.CapturedLog;
import java.util.List;
import java.util.logging.Level;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * A scheduled run that fails while the application runs is a WARN; one cut short by the shutdown (its pool and beans
 * gone under it, as the reconciler's run was in a CI log) is only INFO: the next run retries either way.
 */
class LifecycleTest {

    private static final Logger LOG = Logger.getLogger(LifecycleTest.class);

    @Test
    void shouldWarnOfAFailedRunWhileRunningAndOnlyInformOfOneCutShortByTheShutdown() {
        Lifecycle lifecycle = new Lifecycle();
        try (CapturedLog log = CapturedLog.start()) {
            lifecycle.started(null);
            lifecycle.runFailed(LOG, "Nightly run failed, next run retries", new IllegalStateException("PostgreSQL away"));
            lifecycle.stopping(null);
            lifecycle.runFailed(LOG, "Nightly run failed, next run retries", new IllegalArgumentException(
                    "Unable to find an EntityManagerFactory for persistence unit '<default>'."));

            String category = " [" + LifecycleTest.class.getName() + "] ";
            assertEquals(List.of("WARN" + category + "Nightly run failed, next run retries:"
                    + " java.lang.IllegalStateException: PostgreSQL away"), log.atLeast(Level.WARNING));
            assertEquals(2, log.atLeast(Level.INFO).stream().filter(line -> line.contains(category)).count(),
                    "the run cut short by the shutdown is still said, at INFO");
        }
    }
}
