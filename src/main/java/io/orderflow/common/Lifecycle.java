package io.orderflow.common;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Whether the application is between start-up and shutdown. Scheduled jobs ask it at the start of each run and do
 * nothing outside that window (a sweep would race the closing pool for nothing). It replaces the scheduler's
 * {@code skipExecutionIf = ApplicationNotRunning}: that predicate fires a {@code SkippedExecution} CDI event for every
 * skipped run, and a run skipped after shutdown logs ERROR "Error while firing SkippedExecution event".
 */
@ApplicationScoped
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
}
