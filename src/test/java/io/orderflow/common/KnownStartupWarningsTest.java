package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.logging.Level;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.Test;

/** Only the two known startup warnings are dropped; any other, even a close relative, passes. */
class KnownStartupWarningsTest {

    private static final String UNSUPPORTED = "Persistence-unit [%s] sets unsupported properties. These properties may"
            + " not work correctly. Unsupported properties being set: %s";

    private final KnownStartupWarnings filter = new KnownStartupWarnings();

    private static ExtLogRecord warning(String format, Object... parameters) {
        return record(Level.WARNING, format, parameters);
    }

    private static ExtLogRecord record(Level level, String format, Object... parameters) {
        ExtLogRecord record = new ExtLogRecord(level, format, ExtLogRecord.FormatStyle.PRINTF,
                KnownStartupWarningsTest.class.getName());
        record.setParameters(parameters);
        return record;
    }

    @Test
    void thePlanCacheSwitchWarningIsDropped() {
        assertFalse(filter.isLoggable(warning(UNSUPPORTED, "<default>", "[hibernate.query.plan_cache_enabled]")));
    }

    @Test
    void aWarningAboutAnyOtherUnsupportedPropertyPasses() {
        assertTrue(filter.isLoggable(warning(UNSUPPORTED, "<default>",
                "[hibernate.query.plan_cache_enabled, hibernate.jdbc.batch_size]")));
        assertTrue(filter.isLoggable(warning(UNSUPPORTED, "<default>", "[hibernate.order_updates]")));
    }

    @Test
    void theDuplicateRedisPoolGaugeWarningIsDropped() {
        assertFalse(filter.isLoggable(warning("This Gauge has been already registered (MeterId{name='%s'})",
                "redis.pool.queue.size")));
    }

    @Test
    void everyOtherWarningPasses() {
        assertTrue(filter.isLoggable(warning("This Gauge has been already registered (MeterId{name='%s'})",
                "orderflow.db.pending")));
        assertTrue(filter.isLoggable(warning("Transient failure answered with 503: %s", "boom")));
        assertTrue(filter.isLoggable(warning(null)));
    }

    @Test
    void aRecordBelowWarningPassesUnformatted() {
        Object unprintable = new Object() {
            @Override
            public String toString() {
                throw new AssertionError("an INFO record was formatted by the filter");
            }
        };
        assertTrue(filter.isLoggable(record(Level.INFO, "order %s SHIP applied", unprintable)));
    }
}
