package io.orderflow.payment.spi;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * How a provider's outbound calls are guarded (each provider's config has these, e.g.
 * {@code payments.providers.stripe.call-timeout}). Retries resend the same idempotency key, so they are safe.
 */
public interface CallSettings {

    /** How long one call may take; past it the outcome is UNDEFINED unless a retry settles it. */
    @WithDefault("10s")
    Duration callTimeout();

    /** Retries after a transient failure (no connection, timeout, 5xx, 429). */
    @WithDefault("2")
    int maxRetries();

    /** Pause before a retry (half of it again as random jitter). */
    @WithDefault("200ms")
    Duration retryDelay();

    /** The breaker opens when half of this many consecutive calls failed transiently. */
    @WithDefault("20")
    int breakerWindow();

    /** How long an open breaker refuses calls (CANCELED, nothing sent) before it lets one through. */
    @WithDefault("30s")
    Duration breakerDelay();
}
