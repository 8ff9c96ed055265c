package io.orderflow.payment;

import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.matching.RequestPatternBuilder;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.wechatpay.WechatFixtures;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Assertions;

/**
 * A real HTTP server (WireMock, on a free port) standing in for Stripe's and WeChat Pay's APIs, and the keys and
 * secrets of both, made for this run: Stripe and WeChat Pay are configured against it. WeChat Pay's answers are
 * signed as WeChat signs them, as they are sent ({@link WechatResponseSigner}). Test classes get it through a field
 * annotated {@link InjectSandbox}; tests that need short timeouts and a small breaker window share this setup.
 */
public class PaymentSandbox implements QuarkusTestResourceLifecycleManager {

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.FIELD)
    public @interface InjectSandbox {
    }

    /** What a test needs to play the providers. */
    public record Sandbox(WireMockServer server, WechatFixtures wechat) {

        /**
         * Waits, bounded, until the server has received {@code n} requests like {@code pattern}: a test that makes
         * the service hold a provider call open acts while it is held.
         */
        public void awaitRequests(RequestPatternBuilder pattern, int n) {
            for (int i = 0; i < 400 && server.findAll(pattern).size() < n; i++) {
                try {
                    Thread.sleep(25);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            Assertions.assertEquals(n, server.findAll(pattern).size(),
                    "requests received by the provider sandbox");
        }
    }

    private WireMockServer server;
    private Sandbox sandbox;
    private Path keys;

    @Override
    public Map<String, String> start() {
        try {
            keys = Files.createTempDirectory("orderflow-payment-keys");
            WechatFixtures wechat = WechatFixtures.create(keys);
            server = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1")
                    .extensions(new WechatResponseSigner(wechat)));
            server.start();
            sandbox = new Sandbox(server, wechat);
            String base = "http://127.0.0.1:" + server.port();
            Map<String, String> config = new HashMap<>();
            config.put("payments.providers.stripe.api-key", StripeFixtures.API_KEY);
            config.put("payments.providers.stripe.webhook-secrets",
                    StripeFixtures.SECRET + "," + StripeFixtures.ROTATED_SECRET);
            config.put("payments.providers.stripe.api-base", base);
            config.putAll(wechat.config(base));
            for (String provider : new String[] { "stripe", "wechatpay" }) {
                String prefix = "payments.providers." + provider + ".";
                config.put(prefix + "call-timeout", "1s");
                config.put(prefix + "http-timeout", "3s");
                config.put(prefix + "retry-delay", "20ms");
                config.put(prefix + "breaker-window", "6");
                config.put(prefix + "breaker-delay", "60s");
            }
            return config;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(sandbox, new TestInjector.AnnotatedAndMatchesType(InjectSandbox.class,
                Sandbox.class));
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stop();
        }
        if (keys != null) {
            try (var files = Files.list(keys)) {
                files.forEach(file -> file.toFile().delete());
                Files.deleteIfExists(keys);
            } catch (IOException e) {
                // a temp directory left behind is harmless
            }
        }
    }
}
