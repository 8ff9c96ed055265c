package io.orderflow.bench;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Plays the payment provider: a PAYMENT_SUCCEEDED notification and its {@code Payment-Signature} header,
 * {@code t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>." + body)>}. A provider re-sends the very same body for the
 * same event, so a repeat carries the same bytes (and here the same signature, well inside the 300 s tolerance).
 */
public final class Mockpay {

    private Mockpay() {
    }

    public static String succeeded(String eventId, String orderId, long amount, String currency, String txnId,
            Instant occurredAt) {
        return "{\"eventId\":\"" + eventId + "\",\"type\":\"PAYMENT_SUCCEEDED\",\"orderId\":\"" + orderId
                + "\",\"amount\":" + amount + ",\"currency\":\"" + currency + "\",\"providerTxnId\":\"" + txnId
                + "\",\"occurredAt\":\"" + occurredAt + "\"}";
    }

    public static String signature(String secret, long unixSeconds, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((unixSeconds + ".").getBytes(StandardCharsets.UTF_8));
            byte[] digest = mac.doFinal(body.getBytes(StandardCharsets.UTF_8));
            return "t=" + unixSeconds + ",v1=" + HexFormat.of().formatHex(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JRE", e);
        }
    }
}
