package io.orderflow.payment.spi;

import io.orderflow.idempotency.IdempotencyKeys;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** A notification as it arrived: its headers (looked up case-insensitively) and its raw body, unparsed. */
public record NotificationRequest(Map<String, String> headers, byte[] body) {

    public NotificationRequest {
        TreeMap<String, String> insensitive = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        insensitive.putAll(headers);
        headers = Collections.unmodifiableMap(insensitive);
        body = body == null ? new byte[0] : body;
    }

    /** The header's value, or null. */
    public String header(String name) {
        return headers.get(name);
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** {@link #keyOf(String, byte[])} for this request's body. */
    public String keyOf(String id) {
        return keyOf(id, body);
    }

    /**
     * The dedup key of a verified notification: its own id when that is usable ({@code id} already read through
     * {@link ProviderJson#text}: no control character, no lone surrogate, at most 255 characters), else
     * {@code sha256:<hex>} of the raw body, so a notification without a usable id is still recorded once however
     * often it is re-sent, and nothing the provider sent as an id reaches a column unchecked.
     */
    public static String keyOf(String id, byte[] body) {
        if (id != null) {
            return id;
        }
        return "sha256:" + IdempotencyKeys.fingerprint(body);
    }
}
