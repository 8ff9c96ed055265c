package io.orderflow.payment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.payment.stripe.StripeConfig;
import io.orderflow.payment.stripe.StripeProvider;
import io.orderflow.payment.wechatpay.WechatPayConfig;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A provider is offered with all of its settings, not offered with none, and stops the service with some. */
class ProviderSettingsTest {

    /** A config mapping answering {@code values} (method name → value), empty for the rest. */
    @SuppressWarnings("unchecked")
    private static <T> T config(Class<T> type, Map<String, Object> values) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            if (method.getReturnType() == Optional.class) {
                return Optional.ofNullable(values.get(method.getName()));
            }
            throw new UnsupportedOperationException(method.getName());
        };
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, handler);
    }

    @Test
    void shouldOfferWechatPayOnlyWithEveryRequiredSettingAndNameTheMissingOnes() {
        assertFalse(config(WechatPayConfig.class, Map.of()).complete());
        Map<String, Object> all = Map.of("appId", "wx1", "merchantId", "1230000109", "merchantSerial", "5157F0",
                "merchantPrivateKey", "/k.pem", "apiV3Key", "k".repeat(32), "platformPublicKey", "/p.pem",
                "platformPublicKeyId", "PUB_KEY_ID_1", "notifyUrl", "https://shop/cb");
        assertTrue(config(WechatPayConfig.class, all).complete());
        IllegalStateException partial = assertThrows(IllegalStateException.class,
                () -> config(WechatPayConfig.class, Map.of("merchantId", "1230000109", "apiV3Key", "k")).complete());
        assertTrue(partial.getMessage().contains("payments.providers.wechatpay.platform-public-key-id"),
                partial.getMessage());
        assertFalse(partial.getMessage().contains("merchant-id,"), "present settings are not listed");
    }

    @Test
    void shouldRefuseAStripeKeyWithoutAWebhookSecretAndTheOtherWayRound() {
        assertThrows(IllegalStateException.class, () -> new StripeProvider(config(StripeConfig.class,
                Map.of("apiKey", "sk_test_1")), null, null));
        assertThrows(IllegalStateException.class, () -> new StripeProvider(config(StripeConfig.class,
                Map.of("webhookSecrets", List.of("whsec_1"))), null, null));
        assertEquals(false, new StripeProvider(config(StripeConfig.class, Map.of()), null, null).configured());
    }
}
