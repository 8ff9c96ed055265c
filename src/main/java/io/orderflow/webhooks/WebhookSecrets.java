package io.orderflow.webhooks;

import java.security.SecureRandom;
import java.util.Base64;

/** Endpoint secrets as Standard Webhooks writes them: {@code whsec_} and the base64 of random bytes. */
final class WebhookSecrets {

    static final String PREFIX = "whsec_";

    /** 24 bytes is Standard Webhooks' floor; 32 gives HMAC-SHA256 a key as long as its output. */
    private static final int BYTES = 32;

    private static final SecureRandom RANDOM = new SecureRandom();

    private WebhookSecrets() {
    }

    static String generate() {
        byte[] key = new byte[BYTES];
        RANDOM.nextBytes(key);
        return PREFIX + Base64.getEncoder().encodeToString(key);
    }

    /** The HMAC key a secret stands for: the bytes its base64 part decodes to. */
    static byte[] key(String secret) {
        return Base64.getDecoder().decode(secret.substring(PREFIX.length()));
    }
}
