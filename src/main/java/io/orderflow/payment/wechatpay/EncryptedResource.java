package io.orderflow.payment.wechatpay;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A notification's {@code resource} in the shape AEAD_AES_256_GCM needs: a base64 ciphertext at least as long as
 * the 16-byte tag, a nonce, and optional associated data, all strings. Anything else ({@code ""}, {@code "AAAA"}, a
 * number) is malformed: no key could open it, so it says nothing about our APIv3 key.
 */
record EncryptedResource(byte[] associatedData, byte[] nonce, byte[] ciphertext) {

    static final String SHAPE = "algorithm AEAD_AES_256_GCM, a base64 ciphertext of at least the 16-byte tag, a nonce,"
            + " and associated_data a string when present";
    private static final int TAG_BYTES = 16;

    /** The resource's parts, or null when it is malformed. */
    static EncryptedResource of(JsonNode resource) {
        if (resource == null || !resource.isObject()
                || !resource.path("algorithm").asText("").equals("AEAD_AES_256_GCM")
                || !resource.path("ciphertext").isTextual() || !resource.path("nonce").isTextual()
                || resource.get("nonce").asText().isEmpty()) {
            return null;
        }
        JsonNode associated = resource.get("associated_data");
        if (associated != null && !associated.isNull() && !associated.isTextual()) {
            return null;
        }
        byte[] ciphertext;
        try {
            ciphertext = Base64.getDecoder().decode(resource.get("ciphertext").asText());
        } catch (IllegalArgumentException notBase64) {
            return null;
        }
        if (ciphertext.length < TAG_BYTES) {
            return null;
        }
        return new EncryptedResource(utf8(associated == null || associated.isNull() ? "" : associated.asText()),
                utf8(resource.get("nonce").asText()), ciphertext);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
