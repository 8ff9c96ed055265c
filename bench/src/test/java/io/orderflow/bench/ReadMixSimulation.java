package io.orderflow.bench;

import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.percent;
import static io.gatling.javaapi.core.CoreDsl.randomSwitch;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scenario 4, the read mix: one request per user, 80% {@code GET /orders/{id}} of a random seeded order and 20%
 * transitions (SHIP of a seeded PAID order, each order shipped once). The orders come from bench/sql/seed.sql, so
 * this scenario measures reads against a table of realistic size instead of against the few orders it made itself.
 */
public class ReadMixSimulation extends BenchSimulation {

    private static final long READ_FROM = (long) BenchConfig.number("bench.readFrom", 1);
    private static final long READ_TO = (long) BenchConfig.number("bench.readTo", 300_000);
    private static final long SHIP_TO = (long) BenchConfig.number("bench.shipTo", 300_000);
    private static final AtomicLong NEXT_SHIP = new AtomicLong((long) BenchConfig.number("bench.shipFrom", 200_001));

    public ReadMixSimulation() {
        super(1, 0.2);
        run("read mix", name -> randomSwitch().on(
                percent(80.0).then(exec(session -> session.set("orderId",
                        Seeded.id(ThreadLocalRandom.current().nextLong(READ_FROM, READ_TO + 1))))
                        .exec(Requests.get(name + "get"))),
                percent(20.0).then(exec(session -> session.set("orderId", nextToShip()).set("tracking", "TRK-MIX"))
                        .exec(Requests.ship(name + "ship")))));
    }

    private static String nextToShip() {
        long n = NEXT_SHIP.getAndIncrement();
        if (n > SHIP_TO) {
            // shipping an order twice would measure duplicates, not transitions: seed more orders instead
            throw new IllegalStateException("ran out of seeded PAID orders; raise the seed's size");
        }
        return Seeded.id(n);
    }
}
