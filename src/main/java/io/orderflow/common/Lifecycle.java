package io.orderflow.common;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/**
 * Whether the application is between start-up and shutdown. Scheduled jobs ask it at the start of each run and do
 * nothing outside that window (a sweep would race the closing pool for nothing). It replaces the scheduler's
 * {@code skipExecutionIf = ApplicationNotRunning}: that predicate fires a {@code SkippedExecution} CDI event for every
 * skipped run, and a run skipped after shutdown logs ERROR "Error while firing SkippedExecution event". A singleton,
 * not a client proxy, so that a run ending after the container stopped can still ask it.
 */
@Singleton
public class Lifecycle {

    private volatile boolean running;

    void started(@Observes StartupEvent event) {
        running = true;
    }

    void stopping(@Observes ShutdownEvent event) {
        running = false;
    }

    public boolean running() {
        return running;
    }

    /**
     * Logs a scheduled run's failure as {@code message: cause}: at WARN while the application runs, at INFO once it
     * is stopping, when the pool and the beans go away under a run that started before. Either way the next run, on
     * this replica or another, retries; only the first says something an operator should look at.
     */
    public void runFailed(Logger log, String message, Throwable failure) {
        if (running) {
            log.warnf("%s: %s", message, failure.toString());
        } else {
            // the cause is the shutdown itself (pool or container gone): said at DEBUG only
            log.infof("%s (the application is stopping)", message);
            log.debugf("%s: %s", message, failure.toString());
        }
    }
}
