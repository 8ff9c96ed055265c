package io.orderflow.events;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;

/**
 * An event's CloudEvent id, derived from the row it is rendered from (RFC 9562 version 5, name-based): the same on
 * every reading, in the feed, the stream and every webhook, without the change writing one.
 */
final class EventIds {

    /** The namespace of orderflow's event ids (a random UUID, fixed once). */
    private static final UUID NAMESPACE = UUID.fromString("4f2bf3c4-5c3a-4f0e-9d39-7b1de3a5a0c1");

    private EventIds() {
    }

    /** The event of an order's transition to version {@code seq}. */
    static UUID transition(UUID orderId, long seq) {
        return nameBased("transition:" + orderId + ":" + seq);
    }

    /** A side event (an order's creation, a refund's change) by its row id. */
    static UUID side(long id) {
        return nameBased("side:" + id);
    }

    static UUID nameBased(String name) {
        byte[] hash;
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            sha1.update(toBytes(NAMESPACE));
            hash = sha1.digest(name.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
        hash[6] = (byte) ((hash[6] & 0x0f) | 0x50); // version 5
        hash[8] = (byte) ((hash[8] & 0x3f) | 0x80); // RFC 9562 variant
        long msb = 0;
        long lsb = 0;
        for (int i = 0; i < 8; i++) {
            msb = (msb << 8) | (hash[i] & 0xff);
            lsb = (lsb << 8) | (hash[i + 8] & 0xff);
        }
        return new UUID(msb, lsb);
    }

    private static byte[] toBytes(UUID uuid) {
        byte[] bytes = new byte[16];
        long msb = uuid.getMostSignificantBits();
        long lsb = uuid.getLeastSignificantBits();
        for (int i = 0; i < 8; i++) {
            bytes[i] = (byte) (msb >>> (56 - 8 * i));
            bytes[i + 8] = (byte) (lsb >>> (56 - 8 * i));
        }
        return bytes;
    }
}
