package io.orderflow.support;

import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/** Waits for a condition the test cannot be told about (a statement waiting on a lock, a queue filling). */
public final class Await {

    private Await() {
    }

    /** Polls {@code condition} every 10 ms for up to 20 s; fails naming {@code what} when it never held. */
    public static void until(BooleanSupplier condition, String what) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
