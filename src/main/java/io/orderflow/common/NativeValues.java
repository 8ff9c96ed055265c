package io.orderflow.common;

import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.UUID;

/** The columns of a native query's row ({@code Object[]}) as Java values, whichever type the driver chose. */
public final class NativeValues {

    private NativeValues() {
    }

    /** A {@code timestamptz} column; null stays null. */
    public static Instant instant(Object value) {
        if (value == null || value instanceof Instant) {
            return (Instant) value;
        }
        if (value instanceof OffsetDateTime offset) {
            return offset.toInstant();
        }
        return ((Timestamp) value).toInstant();
    }

    /** A {@code uuid} column, or one cast to text; null stays null. */
    public static UUID uuid(Object value) {
        return value == null || value instanceof UUID ? (UUID) value : UUID.fromString(value.toString());
    }

    /** A numeric column, 0 when null. */
    public static long number(Object value) {
        return value == null ? 0 : ((Number) value).longValue();
    }
}
