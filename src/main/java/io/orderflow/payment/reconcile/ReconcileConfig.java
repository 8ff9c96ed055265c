package io.orderflow.payment.reconcile;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** The janitor ({@code payments.reconcile.*}); {@code every} (default 60s, {@code off} to stop it) schedules it. */
@ConfigMapping(prefix = "payments.reconcile")
public interface ReconcileConfig {

    /** How often the janitor runs. */
    @WithDefault("60s")
    String every();

    /** How long an attempt may stay pending before the provider is asked about it. */
    @WithDefault("15m")
    Duration after();

    /** Attempts asked about per run. */
    @WithDefault("20")
    int batchSize();
}
