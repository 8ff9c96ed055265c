package io.orderflow.order.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class BoundedCacheTest {

    private final List<String> builds = new ArrayList<>();
    private final Function<String, String> build = key -> {
        builds.add(key);
        return "built " + key;
    };

    @Test
    void shouldBuildAKeptKeyOnce() {
        BoundedCache<String, String> cache = new BoundedCache<>(2);
        String first = cache.get("a", build);
        assertSame(first, cache.get("a", build), "the kept value, not a new one");
        assertEquals(List.of("a"), builds);
    }

    @Test
    void shouldKeepNoMoreKeysThanItsBoundAndStillAnswerTheOthers() {
        BoundedCache<String, String> cache = new BoundedCache<>(2);
        cache.get("a", build);
        cache.get("b", build);
        assertEquals("built c", cache.get("c", build));
        assertEquals("built c", cache.get("c", build));
        assertEquals(2, cache.size(), "a key past the bound is not kept");
        assertEquals(List.of("a", "b", "c", "c"), builds, "a key past the bound is built each time it is asked for");
    }
}
