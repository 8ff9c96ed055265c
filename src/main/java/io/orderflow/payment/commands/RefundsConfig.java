package io.orderflow.payment.commands;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** The refund worker ({@code payments.refunds.*}); {@code every} (default 5s, {@code off} to stop it) schedules it. */
@ConfigMapping(prefix = "payments.refunds")
public interface RefundsConfig {

    /** How often due refund commands are sent. */
    @WithDefault("5s")
    String every();

    /**
     * How long a claimed command is left to its replica before another may retry it. Each command is claimed just
     * before its call, so this must outlast one command's worst case: a look-up and a send, each up to
     * (max-retries + 1) x call-timeout plus the retry delays (2 x 31 s with the defaults). Should it not, the late
     * outcome is refused (every settle is fenced by its claim) and the provider's key keeps the retry from paying
     * twice.
     */
    @WithDefault("120s")
    Duration lease();

    /** Commands claimed per pass. */
    @WithDefault("10")
    int batchSize();

    /**
     * The longest wait before the first retry after a timeout or a 5xx; tripled for each further one. Each wait is
     * drawn at random below it (full jitter), so commands that failed together are not retried together.
     */
    @WithDefault("1s")
    Duration firstBackoff();

    /** The cap of the retry ceiling: no wait between retries is longer. */
    @WithDefault("10m")
    Duration maxBackoff();

    /** How long the provider honours an idempotency key (Stripe: 24 hours); older commands look their refund up first. */
    @WithDefault("24h")
    Duration providerKeyWindow();
}
