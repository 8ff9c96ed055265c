package io.orderflow.payment.mockpay;

import io.orderflow.common.problem.ProblemType;
import io.orderflow.payment.spi.NotificationRejected;
import io.orderflow.payment.spi.SignedAt;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies {@code Payment-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>." + raw body)>} (Stripe's
 * scheme; several v1 entries allowed) on the raw bytes, before anything is parsed, with a constant-time compare.
 */
public final class SignatureVerifier {

    public static final String HEADER = "Payment-Signature";

    private SignatureVerifier() {
    }

    public record Parsed(long timestamp, List<byte[]> signatures) {
    }

    /** @throws NotificationRejected signature-missing (400) when the header is absent or garbled */
    public static Parsed parse(String header) {
        if (header == null || header.isBlank() || header.length() > 4096) {
            throw new NotificationRejected(ProblemType.SIGNATURE_MISSING,
                    "Send a Payment-Signature header: t=...,v1=...");
        }
        Long timestamp = null;
        List<byte[]> signatures = new ArrayList<>();
        for (String part : header.split(",")) {
            String[] kv = part.trim().split("=", 2);
            if (kv.length != 2) {
                throw garbled();
            }
            try {
                if (kv[0].equals("t")) {
                    timestamp = Long.parseLong(kv[1]);
                } else if (kv[0].equals("v1")) {
                    signatures.add(HexFormat.of().parseHex(kv[1]));
                }
            } catch (IllegalArgumentException e) {
                throw garbled();
            }
        }
        if (timestamp == null || signatures.isEmpty()) {
            throw garbled();
        }
        return new Parsed(timestamp, signatures);
    }

    /** @throws NotificationRejected signature-invalid (401) when no secret signs the body or it is stale */
    public static void verify(Parsed parsed, byte[] body, List<String> secrets, Duration tolerance, Instant now) {
        SignedAt.requireWithin(parsed.timestamp(), now, tolerance);
        boolean valid = false;
        for (String secret : secrets) {
            byte[] expected = sign(secret, parsed.timestamp(), body);
            for (byte[] candidate : parsed.signatures()) {
                // no early exit: every comparison is made, each in constant time
                valid |= MessageDigest.isEqual(expected, candidate);
            }
        }
        if (!valid) {
            throw new NotificationRejected(ProblemType.SIGNATURE_INVALID, "The signature does not match the body");
        }
    }

    /** HMAC-SHA256(secret, "t." + body). */
    public static byte[] sign(String secret, long timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
            return mac.doFinal(body);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JRE", e);
        }
    }

    private static NotificationRejected garbled() {
        return new NotificationRejected(ProblemType.SIGNATURE_MISSING,
                "Payment-Signature must look like t=<unix seconds>,v1=<hex>");
    }
}
