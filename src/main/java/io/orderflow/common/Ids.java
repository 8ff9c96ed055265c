package io.orderflow.common;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.UUID;

/**
 * Time-ordered UUIDs (RFC 9562 version 7): 48 bits of Unix milliseconds then random bits, so new orders land at
 * the right edge of the primary-key index instead of all over it, and keyset pages follow creation order.
 */
public final class Ids {

    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {
    }

    /**
     * {@code text} as a UUID when it is one in canonical form (36 characters), else null: {@link UUID#fromString}
     * also takes forms like {@code 1-1-1-1-1}, which no id this service or a provider it calls ever wrote.
     */
    public static UUID parseOrNull(String text) {
        if (text == null || text.length() != 36) {
            return null;
        }
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    public static UUID uuidV7(Clock clock) {
        long millis = clock.millis();
        long randA = RANDOM.nextInt(1 << 12);
        long msb = (millis << 16) | (0x7L << 12) | randA;
        long lsb = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }
}
