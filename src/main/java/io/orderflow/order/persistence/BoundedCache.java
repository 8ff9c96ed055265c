package io.orderflow.order.persistence;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Values built once per key, up to {@code max} keys: a lookup never waits on a lock, and a key beyond the bound is
 * built every time instead of growing the map, so a caller whose keys vary without end costs CPU, never memory.
 */
final class BoundedCache<K, V> {

    private final int max;
    private final Map<K, V> kept = new ConcurrentHashMap<>();

    BoundedCache(int max) {
        this.max = max;
    }

    V get(K key, Function<K, V> build) {
        V value = kept.get(key);
        if (value != null) {
            return value;
        }
        return keep(key, build.apply(key));
    }

    /** Only additions take the lock, so the size one sees is the size the addition makes: never past the bound. */
    private synchronized V keep(K key, V built) {
        if (kept.size() >= max) {
            return built;
        }
        V first = kept.putIfAbsent(key, built);
        return first != null ? first : built;
    }

    int size() {
        return kept.size();
    }
}
