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

    /** How many values the distribution summary recorded, or 0 before the first. */
    public static long recorded(MeterRegistry registry, String name) {
        var summary = registry.find(name).summary();
        return summary == null ? 0 : summary.count();
    }

    /** The sum of the values the distribution summary recorded, or 0 before the first. */
    public static double recordedTotal(MeterRegistry registry, String name) {
        var summary = registry.find(name).summary();
        return summary == null ? 0 : summary.totalAmount();
    }

    /** The gauge's value now. */
    public static double gauge(MeterRegistry registry, String name) {
        return registry.find(name).gauge().value();
    }
}
