package io.orderflow.payment.stripe;

import io.orderflow.payment.spi.CallSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Stripe ({@code payments.providers.stripe.*}). Offered when both the API key and a webhook secret are set; one
 * without the other stops the service at startup.
 */
@ConfigMapping(prefix = "payments.providers.stripe")
public interface StripeConfig extends CallSettings {

    /** The secret API key (sk_live_..., sk_test_... or a restricted rk_... key). */
    Optional<String> apiKey();

    /** The webhook endpoint's signing secrets (whsec_...), comma-separated: list old and new while rotating. */
    Optional<List<String>> webhookSecrets();

    /** Where Stripe's API is; tests point it at a local server. */
    @WithDefault("https://api.stripe.com")
    URI apiBase();

    /** How far a webhook signature's timestamp may be from our clock, past or future (Stripe's own default). */
    @WithDefault("300s")
    Duration tolerance();

    /** Connect and read timeout of one HTTP call; the fault-tolerance timeout bounds the whole call above it. */
    @WithDefault("8s")
    Duration httpTimeout();
}
