package io.orderflow.common;

import io.quarkus.logging.LoggingFilter;
import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * Drops one known, harmless startup warning: "This Gauge has been already registered ... redis.pool.queue.size".
 * Quarkus 3.33's Redis extension initialises the default client twice (once for the data sources, once for the
 * plain clients, RedisDatasourceProcessor and RedisClientProcessor both calling RedisClientRecorder.initialize), so
 * Vert.x creates two pools named {@code <default>} and Micrometer refuses the second pool's gauge. The second client
 * replaces the first, which never opens a connection. Every other warning passes.
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
