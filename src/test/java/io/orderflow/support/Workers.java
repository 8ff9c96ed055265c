package io.orderflow.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A few daemon threads running the same loop, joined (bounded) when stopped: the load generators' workers. */
final class Workers {

    private final List<Thread> threads = new ArrayList<>();

    /** Starts {@code count} threads named {@code name-<i>}, each running {@code loop}. */
    static Workers start(String name, int count, Runnable loop) {
        Workers workers = new Workers();
        for (int i = 0; i < count; i++) {
            Thread t = new Thread(loop, name + "-" + i);
            t.setDaemon(true);
            workers.threads.add(t);
            t.start();
        }
        return workers;
    }

    /** Waits for each thread to end, at most {@code bound} each (the loop's own flag must have told it to). */
    void join(Duration bound) {
        for (Thread t : threads) {
            try {
                t.join(bound.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
