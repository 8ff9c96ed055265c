package io.orderflow.common;

import io.quarkus.logging.LoggingFilter;
import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * Drops one known, harmless startup warning: "This Gauge has been already registered ... redis.pool.queue.size".
 * Quarkus 3.33's Redis extension initialises the default client twice: RedisClientProcessor and
 * RedisDatasourceProcessor both call RedisClientRecorder.initialize, whose {@code clients.putIfAbsent(name,
 * create(...))} builds a second Vert.x client (and pool, whose gauges Micrometer refuses as duplicates) before it
 * finds the first one there and keeps that. The second client is dropped unused; it never opens a connection.
 * (Checked by decompiling 3.33.2; the warning shows with {@code -Dquarkus.log.console.filter=}.) The cause is
 * inside the extension, so it cannot be mended here: renaming the second pool through a RedisOptionsCustomizer would
 * only export a dead pool's gauges. After a Quarkus upgrade, try without this filter. Every other warning passes.
 */
@LoggingFilter(name = "redis-pool-gauge")
public final class RedisPoolGaugeFilter implements Filter {

    @Override
    public boolean isLoggable(LogRecord record) {
        String message = record.getMessage();
        return message == null || !(message.startsWith("This Gauge has been already registered")
                && message.contains("redis.pool.queue.size"));
    }
}
