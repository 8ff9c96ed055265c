package io.orderflow.bench;

/**
 * Ids of the orders bench/sql/seed.sql inserts: order number n has the UUID 00000000-0000-4000-8000-&lt;n in 12 hex
 * digits&gt;. Gatling, the wrk scripts and the pgbench anchor all derive ids this way, so none needs an id list.
 */
public final class Seeded {

    private Seeded() {
    }

    public static String id(long n) {
        return String.format("00000000-0000-4000-8000-%012x", n);
    }
}
