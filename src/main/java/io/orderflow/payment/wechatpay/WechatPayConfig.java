package io.orderflow.payment.wechatpay;

import io.orderflow.payment.spi.CallSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * WeChat Pay API v3 ({@code payments.providers.wechatpay.*}), in public-key mode (the platform public key and its
 * id, as the merchant platform issues them). PEM values are file paths. Offered when every setting without a default
 * is set; some but not all stops the service at startup.
 */
@ConfigMapping(prefix = "payments.providers.wechatpay")
public interface WechatPayConfig extends CallSettings {

    /** The AppID the Native payment is made for. */
    Optional<String> appId();

    /** The merchant id (mchid). */
    Optional<String> merchantId();

    /** The serial number of the merchant API certificate whose private key signs requests. */
    Optional<String> merchantSerial();

    /** Path of the merchant API private key (apiclient_key.pem). */
    Optional<String> merchantPrivateKey();

    /** The APIv3 key (32 characters) that decrypts notification resources. */
    Optional<String> apiV3Key();

    /** Path of the WeChat Pay platform public key (pub_key.pem) that verifies notifications and answers. */
    Optional<String> platformPublicKey();

    /** The platform public key's id (PUB_KEY_ID_...), sent as Wechatpay-Serial. */
    Optional<String> platformPublicKeyId();

    /** Where WeChat Pay's API is; tests point it at a local server. */
    @WithDefault("https://api.mch.weixin.qq.com")
    URI apiBase();

    /** The callback URL WeChat Pay notifies (this service's /payments/wechatpay/callbacks, as reached from outside). */
    Optional<String> notifyUrl();

    /** How far a notification's Wechatpay-Timestamp may be from our clock (the SDK does not check it). */
    @WithDefault("5m")
    Duration tolerance();

    /** Connect, read and write timeout of one HTTP call; the fault-tolerance timeout bounds the whole call. */
    @WithDefault("8s")
    Duration httpTimeout();

    /** The required settings by name, present or not. */
    default Map<String, Optional<String>> required() {
        Map<String, Optional<String>> all = new LinkedHashMap<>();
        all.put("app-id", appId());
        all.put("merchant-id", merchantId());
        all.put("merchant-serial", merchantSerial());
        all.put("merchant-private-key", merchantPrivateKey());
        all.put("api-v3-key", apiV3Key());
        all.put("platform-public-key", platformPublicKey());
        all.put("platform-public-key-id", platformPublicKeyId());
        all.put("notify-url", notifyUrl());
        return all;
    }

    /** Whether every required setting is present; throws when only some are. */
    default boolean complete() {
        List<String> missing = required().entrySet().stream()
                .filter(e -> e.getValue().filter(v -> !v.isBlank()).isEmpty()).map(Map.Entry::getKey).toList();
        if (!missing.isEmpty() && missing.size() < required().size()) {
            throw new IllegalStateException("WeChat Pay is configured in part; also set payments.providers.wechatpay."
                    + String.join(", payments.providers.wechatpay.", missing));
        }
        return missing.isEmpty();
    }
}
