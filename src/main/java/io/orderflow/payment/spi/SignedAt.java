package io.orderflow.payment.spi;

import io.orderflow.common.problem.ProblemType;
import java.time.Duration;
import java.time.Instant;

/**
 * The one timestamp rule of every provider's signature: the signed time must be within ±tolerance of our clock. A
 * time in the past beyond it is a captured notification replayed; one in the future beyond it would stay "fresh" as
 * long as it names (Stripe's SDK checks only the past), so it is refused the same way, before anything is parsed.
 */
public final class SignedAt {

    private SignedAt() {
    }

    /** @throws NotificationRejected signature-invalid when {@code epochSeconds} is further than tolerance from now */
    public static void requireWithin(long epochSeconds, Instant now, Duration tolerance) {
        // subtractExact: a timestamp near Long.MIN_VALUE must not wrap into the window
        long skew;
        try {
            skew = Math.abs(Math.subtractExact(now.getEpochSecond(), epochSeconds));
        } catch (ArithmeticException overflow) {
            skew = Long.MAX_VALUE;
        }
        if (skew > tolerance.toSeconds()) {
            throw new NotificationRejected(ProblemType.SIGNATURE_INVALID,
                    "The signature's timestamp is more than " + tolerance.toSeconds() + " s from our clock");
        }
    }
}
