package io.orderflow.payment.mockpay;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * mockpay, the invented provider for dev and tests ({@code payments.providers.mockpay.*}). Without secrets it is
 * not offered: its callbacks answer 404. Production has none by default.
 */
@ConfigMapping(prefix = "payments.providers.mockpay")
public interface MockpayConfig {

    /** HMAC secrets, comma-separated; all are accepted, so a secret can be rotated without downtime. */
    Optional<List<String>> secrets();

    /** How far a signature's timestamp may be from our clock (replay protection). */
    @WithDefault("300s")
    Duration tolerance();
}
