package io.orderflow.support;

import io.quarkus.redis.datasource.RedisDataSource;
import java.time.Duration;
import java.util.List;

/** The service's Redis cache as tests running inside the service see it. */
public final class RedisCache {

    private RedisCache() {
    }

    /**
     * Empties Redis once the answer stored under {@code key} has been cached there. The service writes the cache
     * after it has answered, so a FLUSHDB right after the answer could run before that write and be undone by it.
     */
    public static void forgetAfterCached(RedisDataSource redis, String key) {
        awaitCached(redis, key);
        redis.execute("FLUSHDB");
    }

    /** Waits (up to 10 s) until the service has cached the answer stored under {@code key}. */
    public static void awaitCached(RedisDataSource redis, String key) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!isCached(redis, key) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** True once the service has cached the answer stored under {@code key}. */
    public static boolean isCached(RedisDataSource redis, String key) {
        List<String> keys = redis.key().keys("idem:*:" + key);
        return !keys.isEmpty() && String.valueOf(redis.value(String.class).get(keys.get(0))).startsWith("d:");
    }
}
