package io.orderflow.idempotency;

import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The Idempotency-Key header's syntax and the request fingerprint. */
public final class IdempotencyKeys {

    public static final String HEADER = "Idempotency-Key";
    public static final int MAX_LENGTH = 255;

    private IdempotencyKeys() {
    }

    /**
     * The key inside the header: 1–255 printable ASCII characters. A structured-field string ({@code "..."}, as in
     * the IETF draft) is unquoted; a bare token (as Stripe takes it) is used as is.
     */
    public static String parse(String header) {
        String key = header;
        if (key.length() >= 2 && key.startsWith("\"") && key.endsWith("\"")) {
            key = key.substring(1, key.length() - 1);
        }
        if (key.isEmpty() || key.length() > MAX_LENGTH) {
            throw ProblemException.of(ProblemType.IDEMPOTENCY_KEY_INVALID,
                    "Idempotency-Key must be 1 to " + MAX_LENGTH + " characters long");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                throw ProblemException.of(ProblemType.IDEMPOTENCY_KEY_INVALID,
                        "Idempotency-Key must be printable ASCII");
            }
        }
        return key;
    }

    /** Whether {@code key} is usable as it is: 1–255 printable ASCII characters (what {@link #parse} keeps). */
    public static boolean isWellFormed(String key) {
        return key != null && !key.isEmpty() && key.length() <= MAX_LENGTH
                && key.chars().allMatch(c -> c >= 0x20 && c <= 0x7E);
    }

    public static String fingerprint(byte[] canonicalBody) {
        return HexFormat.of().formatHex(sha256(canonicalBody));
    }

    public static String fingerprint(String text) {
        return fingerprint(text.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    }
}
