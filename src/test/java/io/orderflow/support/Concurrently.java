package io.orderflow.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/** Maps items on a fixed number of threads, bounded in time, results in the items' order. */
public final class Concurrently {

    private Concurrently() {
    }

    public static <T, R> List<R> map(List<T> items, int threads, Function<T, R> work) {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<R>> futures = new ArrayList<>();
            for (T item : items) {
                futures.add(pool.submit(() -> work.apply(item)));
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            List<R> results = new ArrayList<>();
            for (Future<R> f : futures) {
                results.add(f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("not done within 5 minutes", e);
        } finally {
            pool.shutdownNow();
        }
    }
}
