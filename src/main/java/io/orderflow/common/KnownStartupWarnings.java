package io.orderflow.common;

import io.quarkus.logging.LoggingFilter;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.jboss.logmanager.ExtLogRecord;

/**
 * Drops two known startup warnings about choices made on purpose, so that a start prints no warning unless
 * something is wrong. Every other warning passes. After a Quarkus upgrade, try without this filter
 * ({@code -Dquarkus.log.console.filter=} shows them).
 *
 * <ul>
 * <li>"This Gauge has been already registered ... redis.pool.queue.size". Quarkus 3.33's Redis extension initialises
 * the default client twice: RedisClientProcessor and RedisDatasourceProcessor both call
 * RedisClientRecorder.initialize, whose {@code clients.putIfAbsent(name, create(...))} builds a second Vert.x client
 * (and pool, whose gauges Micrometer refuses as duplicates) before it finds the first one there and keeps that. The
 * second client is dropped unused; it never opens a connection. (Checked by decompiling 3.33.2.) The cause is inside
 * the extension, so it cannot be mended here: renaming the second pool through a RedisOptionsCustomizer would only
 * export a dead pool's gauges.</li>
 * <li>"Persistence-unit [&lt;default&gt;] sets unsupported properties ... [hibernate.query.plan_cache_enabled]": the
 * query plan cache is switched off with Hibernate's own switch, because Quarkus's supported size 0 still runs the
 * cache on every statement (application.properties says why; {@code QueryPlanCacheTest} holds it). Only that
 * property is forgiven: a warning that names any other unsupported property passes.</li>
 * </ul>
 */
@LoggingFilter(name = "known-startup-warnings")
public final class KnownStartupWarnings implements Filter {

    static final String PLAN_CACHE = "Unsupported properties being set: [hibernate.query.plan_cache_enabled]";

    @Override
    public boolean isLoggable(LogRecord record) {
        // both are warnings; every record passes here, one per applied transition among them, and formatting its
        // message only to look at it would cost each of them as much again
        if (record.getLevel().intValue() < Level.WARNING.intValue()) {
            return true;
        }
        // a JBoss Logging record holds its format apart from its parameters
        String message = record instanceof ExtLogRecord ext ? ext.getFormattedMessage() : record.getMessage();
        if (message == null) {
            return true;
        }
        boolean duplicateRedisGauge = message.startsWith("This Gauge has been already registered")
                && message.contains("redis.pool.queue.size");
        boolean planCacheSwitch = message.contains("sets unsupported properties") && message.endsWith(PLAN_CACHE);
        return !(duplicateRedisGauge || planCacheSwitch);
    }
}
