package io.orderflow.webhooks;

import io.orderflow.events.EventsConfig;
import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * When a failed delivery is tried again: the first retry after {@code firstDelay}, each next one three times later,
 * up to {@code maxDelay}, each drawn between half and all of that (jitter, so that the deliveries a receiver's outage
 * failed together do not all come back at the same instant). With the defaults (5 s, 6 h) the first retry comes
 * within 5 s and three days hold about twenty attempts.
 */
final class RetrySchedule {

    private final Duration firstDelay;
    private final Duration maxDelay;
    private final DoubleSupplier random;

    RetrySchedule(EventsConfig.Webhooks.Retry config, DoubleSupplier random) {
        this(config.firstDelay(), config.maxDelay(), random);
    }

    RetrySchedule(Duration firstDelay, Duration maxDelay, DoubleSupplier random) {
        this.firstDelay = firstDelay;
        this.maxDelay = maxDelay;
        this.random = random;
    }

    /** The wait after attempt {@code attempt} (1 for the first) failed. */
    Duration after(int attempt) {
        double millis = firstDelay.toMillis() * Math.pow(3, Math.max(0, Math.min(attempt - 1, 30)));
        double capped = Math.min(millis, maxDelay.toMillis());
        return Duration.ofMillis((long) (capped * (0.5 + 0.5 * random.getAsDouble())));
    }
}
