package io.orderflow.payment;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/** A notification as it arrived: its headers (looked up case-insensitively) and its raw body, unparsed. */
public record NotificationRequest(Map<String, String> headers, byte[] body) {

    public NotificationRequest {
        TreeMap<String, String> insensitive = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        insensitive.putAll(headers);
        headers = java.util.Collections.unmodifiableMap(insensitive);
        body = body == null ? new byte[0] : body;
    }

    /** The header's value, or null. */
    public String header(String name) {
        return headers.get(name);
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
