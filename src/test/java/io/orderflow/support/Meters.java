package io.orderflow.support;

import io.micrometer.core.instrument.MeterRegistry;

/** Reads the service's own counters in tests that run inside it. */
public final class Meters {

    private Meters() {
    }

    /** The counter's value, or 0 when nothing has counted it yet. */
    public static double count(MeterRegistry registry, String name, String... tags) {
        var counter = registry.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }
}
