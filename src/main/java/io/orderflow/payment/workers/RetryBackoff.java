package io.orderflow.payment.workers;

import io.orderflow.payment.commands.RefundsConfig;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * How long a provider command waits before its next try: full jitter (a random wait between zero and a ceiling that
 * grows threefold per try up to {@code max-backoff}). Commands that failed together — every refund of a provider that
 * was down for a minute — spread over the whole window instead of coming back in lockstep and failing together again.
 * One rule for refunds ({@link RefundWorker}) and cancels ({@link CancelCommands}).
 */
final class RetryBackoff {

    /** Beyond this many tries the ceiling is the cap anyway; the bound keeps the arithmetic in range. */
    private static final int MAX_EXPONENT = 20;

    private RetryBackoff() {
    }

    /** The wait after try {@code tries} (1 for the first). */
    static Duration after(RefundsConfig config, int tries) {
        return after(config.firstBackoff(), config.maxBackoff(), tries, ThreadLocalRandom.current()::nextDouble);
    }

    /**
     * {@code random(0, min(cap, base * 3^(tries - 1)))}, to the millisecond.
     *
     * @param random a value in [0, 1)
     */
    static Duration after(Duration base, Duration cap, int tries, DoubleSupplier random) {
        int exponent = Math.min(Math.max(tries - 1, 0), MAX_EXPONENT);
        long power = 1;
        for (int i = 0; i < exponent; i++) {
            power *= 3;
        }
        Duration grown = base.multipliedBy(power);
        Duration ceiling = grown.compareTo(cap) > 0 ? cap : grown;
        return Duration.ofMillis((long) (random.getAsDouble() * (ceiling.toMillis() + 1)));
    }
}
