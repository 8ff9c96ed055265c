package io.orderflow.payment.wechatpay;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.Signature;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Assertions;

/**
 * Plays WeChat Pay in tests with keys made for the run: the merchant's key pair (the service signs requests with
 * the private key; tests verify with the public one), the platform's key pair (WeChat signs notifications and
 * answers with the private key; the service verifies with the public one) and the APIv3 key (AES-256-GCM of
 * notification resources). Builds notifications exactly as WeChat does: the resource encrypted, the body signed
 * over {@code timestamp\nnonce\nbody\n}.
 */
public final class WechatFixtures {

    public static final String APP_ID = "wxd678efh567hg6787";
    public static final String MERCHANT_ID = "1230000109";
    public static final String MERCHANT_SERIAL = "5157F09EFDC096DE15EBE81A47057A7232F1B8E1";
    public static final String PLATFORM_KEY_ID = "PUB_KEY_ID_0112300001092025011500112233000000";
    public static final String NOTIFY_URL = "https://shop.example/payments/wechatpay/callbacks";

    private static final Pattern AUTH = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    private final KeyPair merchant;
    private final KeyPair platform;
    private final String apiV3Key;
    private final Path merchantKeyFile;
    private final Path platformKeyFile;

    private WechatFixtures(KeyPair merchant, KeyPair platform, String apiV3Key, Path merchantKeyFile,
            Path platformKeyFile) {
        this.merchant = merchant;
        this.platform = platform;
        this.apiV3Key = apiV3Key;
        this.merchantKeyFile = merchantKeyFile;
        this.platformKeyFile = platformKeyFile;
    }

    /** New keys, the PEM files the service reads written into {@code dir}. */
    public static WechatFixtures create(Path dir) throws IOException {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            KeyPair merchant = generator.generateKeyPair();
            KeyPair platform = generator.generateKeyPair();
            Path merchantKey = dir.resolve("apiclient_key.pem");
            Path platformKey = dir.resolve("pub_key.pem");
            Files.writeString(merchantKey, pem("PRIVATE KEY", merchant.getPrivate().getEncoded()));
            Files.writeString(platformKey, pem("PUBLIC KEY", platform.getPublic().getEncoded()));
            String apiV3Key = UUID.randomUUID().toString().replace("-", "");
            return new WechatFixtures(merchant, platform, apiV3Key, merchantKey, platformKey);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Fixtures with fresh keys in a temporary directory, for tests that run without the service. */
    public static WechatFixtures createTemporary() {
        try {
            Path dir = Files.createTempDirectory("orderflow-wechat-keys");
            dir.toFile().deleteOnExit();
            WechatFixtures fixtures = create(dir);
            fixtures.merchantKeyFile.toFile().deleteOnExit();
            fixtures.platformKeyFile.toFile().deleteOnExit();
            return fixtures;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public Map<String, String> config(String apiBase) {
        String prefix = "payments.providers.wechatpay.";
        Map<String, String> config = new HashMap<>();
        config.put(prefix + "app-id", APP_ID);
        config.put(prefix + "merchant-id", MERCHANT_ID);
        config.put(prefix + "merchant-serial", MERCHANT_SERIAL);
        config.put(prefix + "merchant-private-key", merchantKeyFile.toString());
        config.put(prefix + "api-v3-key", apiV3Key);
        config.put(prefix + "platform-public-key", platformKeyFile.toString());
        config.put(prefix + "platform-public-key-id", PLATFORM_KEY_ID);
        config.put(prefix + "api-base", apiBase);
        config.put(prefix + "notify-url", NOTIFY_URL);
        return config;
    }

    public String apiV3Key() {
        return apiV3Key;
    }

    public Path merchantKeyFile() {
        return merchantKeyFile;
    }

    public Path platformKeyFile() {
        return platformKeyFile;
    }

    /** base64(SHA256withRSA(platform private key, message)): how WeChat signs what it sends. */
    public String signAsPlatform(String message) {
        try {
            Signature signer = Signature.getInstance("SHA256withRSA");
            signer.initSign(platform.getPrivate());
            signer.update(message.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(signer.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether {@code signature} is the merchant's over {@code message}: how WeChat checks a request. */
    public boolean signedByMerchant(String message, String signature) {
        try {
            Signature verifier = Signature.getInstance("SHA256withRSA");
            verifier.initVerify(merchant.getPublic());
            verifier.update(message.getBytes(StandardCharsets.UTF_8));
            return verifier.verify(Base64.getDecoder().decode(signature));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * Asserts what WeChat checks of a request: its {@code Authorization} header ({@code WECHATPAY2-SHA256-RSA2048},
     * this merchant and serial) verifies with the merchant public key over WeChat's message, and it names the
     * platform key it expects the answer signed with.
     */
    public void assertSignedByMerchant(LoggedRequest request) {
        String header = request.getHeader("Authorization");
        Assertions.assertTrue(header != null
                && header.startsWith("WECHATPAY2-SHA256-RSA2048 "), String.valueOf(header));
        Map<String, String> parts = new HashMap<>();
        Matcher m = AUTH.matcher(header);
        while (m.find()) {
            parts.put(m.group(1), m.group(2));
        }
        Assertions.assertEquals(MERCHANT_ID, parts.get("mchid"));
        Assertions.assertEquals(MERCHANT_SERIAL, parts.get("serial_no"));
        String message = request.getMethod().value() + "\n" + request.getUrl() + "\n" + parts.get("timestamp")
                + "\n" + parts.get("nonce_str") + "\n" + request.getBodyAsString() + "\n";
        Assertions.assertTrue(signedByMerchant(message, parts.get("signature")),
                "signature over " + message);
        Assertions.assertEquals(PLATFORM_KEY_ID, request.getHeader("Wechatpay-Serial"));
    }

    /**
     * A notification body: {@code resource} encrypted with the APIv3 key as WeChat does; {@code originalType}
     * ({@code transaction} or {@code refund}) is also the associated data.
     */
    public String notification(String id, String eventType, String originalType, String plaintext) {
        String nonce = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String associatedData = originalType;
        return "{\"id\":\"" + id + "\",\"create_time\":\"2026-01-15T18:00:00+08:00\",\"resource_type\":\""
                + "encrypt-resource\",\"event_type\":\"" + eventType + "\",\"summary\":\"支付成功\",\"resource\":{"
                + "\"original_type\":\"" + associatedData + "\",\"algorithm\":\"AEAD_AES_256_GCM\",\"ciphertext\":\""
                + encrypt(plaintext, nonce, associatedData) + "\",\"associated_data\":\"" + associatedData
                + "\",\"nonce\":\"" + nonce + "\"}}";
    }

    public String encrypt(String plaintext, String nonce, String associatedData) {
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(apiV3Key.getBytes(StandardCharsets.UTF_8), "AES"),
                    new GCMParameterSpec(128, nonce.getBytes(StandardCharsets.UTF_8)));
            cipher.updateAAD(associatedData.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The four headers WeChat sends with a notification, signed at {@code timestamp}. */
    public Map<String, String> headers(String body, long timestamp) {
        String nonce = randomNonce();
        return Map.of("Wechatpay-Timestamp", String.valueOf(timestamp), "Wechatpay-Nonce", nonce,
                "Wechatpay-Serial", PLATFORM_KEY_ID, "Wechatpay-Signature",
                signAsPlatform(timestamp + "\n" + nonce + "\n" + body + "\n"),
                "Wechatpay-Signature-Type", "WECHATPAY2-SHA256-RSA2048");
    }

    /** WeChat Pay's error answer, {@code {"code", "message"}} (the sandbox signs it as it sends it). */
    public static ResponseDefinitionBuilder error(int status, String code,
            String message) {
        return WireMock.aResponse().withStatus(status)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"code\":\"" + code + "\",\"message\":\"" + message + "\"}");
    }

    /** A decrypted {@code TRANSACTION.SUCCESS} resource; {@code totalJson} is JSON text (2500, 2500.9, "2500"). */
    public static String transaction(String outTradeNo, String transactionId, String tradeState, String totalJson) {
        return "{\"appid\":\"" + APP_ID + "\",\"mchid\":\"" + MERCHANT_ID + "\",\"out_trade_no\":\"" + outTradeNo
                + "\",\"transaction_id\":\"" + transactionId + "\",\"trade_type\":\"NATIVE\",\"trade_state\":\""
                + tradeState + "\",\"trade_state_desc\":\"支付成功\",\"bank_type\":\"CMC\",\"attach\":\"\","
                + "\"success_time\":\"2026-01-15T18:00:00+08:00\",\"payer\":{\"openid\":\"oUpF8uMuAJO_M2pxb1Q9zNjWeS6o\"},"
                + "\"amount\":{\"total\":" + totalJson + ",\"payer_total\":" + totalJson
                + ",\"currency\":\"CNY\",\"payer_currency\":\"CNY\"}}";
    }

    /** A decrypted {@code REFUND.SUCCESS} resource. */
    public static String refund(String outTradeNo, String transactionId, String outRefundNo, String refundId,
            String status, String refundJson) {
        return "{\"mchid\":\"" + MERCHANT_ID + "\",\"out_trade_no\":\"" + outTradeNo + "\",\"transaction_id\":\""
                + transactionId + "\",\"out_refund_no\":\"" + outRefundNo + "\",\"refund_id\":\"" + refundId
                + "\",\"refund_status\":\"" + status + "\",\"success_time\":\"2026-01-15T18:05:00+08:00\","
                + "\"user_received_account\":\"招商银行信用卡0403\",\"amount\":{\"total\":" + refundJson
                + ",\"refund\":" + refundJson + ",\"payer_total\":" + refundJson + ",\"payer_refund\":" + refundJson
                + "}}";
    }

    private static String randomNonce() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes).toUpperCase();
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
