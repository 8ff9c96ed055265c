package io.orderflow.payment;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Payment providers that may post callbacks, by name ({@code payments.providers.<name>.*}). A configured provider
 * without secrets stops the service at startup; there is no default secret outside the dev and test profiles.
 */
@ConfigMapping(prefix = "payments")
public interface PaymentsConfig {

    /** Providers by the name used in {@code POST /payments/{provider}/callbacks}. */
    Map<String, Provider> providers();

    interface Provider {
        /** HMAC secrets, comma-separated; all are accepted, so a secret can be rotated without downtime. */
        List<String> secrets();

        /** How far a signature's timestamp may be from our clock (replay protection). */
        @WithDefault("300s")
        Duration tolerance();
    }
}
