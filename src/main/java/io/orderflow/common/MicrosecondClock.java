package io.orderflow.common;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The one clock of the service. Instants are cut to microseconds, PostgreSQL's precision, so that a response
 * rendered before a write says exactly what a later read of the same row says.
 */
@ApplicationScoped
public class MicrosecondClock {

    private final Clock clock;

    public MicrosecondClock() {
        this(Clock.systemUTC());
    }

    MicrosecondClock(Clock clock) {
        this.clock = clock;
    }

    public Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    @Produces
    public Clock clock() {
        return clock;
    }
}
