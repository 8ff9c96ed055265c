package io.orderflow.webhooks;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.List;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code webhook-signature} header of Standard Webhooks: {@code v1,<base64 HMAC-SHA256>} over
 * {@code <webhook-id>.<webhook-timestamp>.<body>}, one per secret in use, space-separated (two during a rotation's
 * overlap, so a receiver that still holds the old secret keeps verifying).
 */
final class WebhookSignatures {

    private WebhookSignatures() {
    }

    static String header(String messageId, long timestamp, String body, List<String> secrets) {
        byte[] signed = (messageId + "." + timestamp + "." + body).getBytes(StandardCharsets.UTF_8);
        return secrets.stream().map(secret -> "v1," + Base64.getEncoder().encodeToString(hmac(secret, signed)))
                .collect(Collectors.joining(" "));
    }

    private static byte[] hmac(String secret, byte[] content) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(WebhookSecrets.key(secret), "HmacSHA256"));
            return mac.doFinal(content);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }
}
