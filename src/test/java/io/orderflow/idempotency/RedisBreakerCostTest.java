package io.orderflow.idempotency;

import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.value.ReactiveValueCommands;
import io.quarkus.redis.datasource.value.SetArgs;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * An opt-in measurement, not part of any tier: what a breaker adds to each shutter command, the claim's
 * {@code SET … NX GET} against the test Redis and an already answered Uni (the breaker alone). Three contestants —
 * no breaker, the hand-written breaker the shutter had before issue 29, SmallRye's Guard ({@link RedisBreaker}) —
 * take turns for five rounds of {@code -Dbench.breaker=N} calls each, one call at a time; it prints the median and
 * the 90th percentile per call and asserts nothing about time. docs/idempotency.md keeps the figures.
 */
@QuarkusTest
@EnabledIfSystemProperty(named = "bench.breaker", matches = "[1-9][0-9]*")
class RedisBreakerCostTest {

    private static final int ROUNDS = 5;
    private static final String UNAVAILABLE = "unavailable";

    @Inject
    ReactiveRedisDataSource redis;

    @Inject
    IdempotencyConfig config;

    @Test
    void shouldPrintWhatEachBreakerCostsPerCall() {
        int calls = Integer.getInteger("bench.breaker");
        ReactiveValueCommands<String, String> values = redis.value(String.class);
        Duration timeout = config.redis().timeout();
        SetArgs args = new SetArgs().nx().ex(Duration.ofSeconds(30));
        String prefix = "idem:bench-breaker-" + UUID.randomUUID() + ":";
        Map<String, Function<String, Uni<String>>> targets = new LinkedHashMap<>();
        targets.put("Redis SET NX GET",
                key -> values.setGet(prefix + key, "p:f", args).ifNoItem().after(timeout).fail());
        targets.put("answered Uni", key -> Uni.createFrom().item("answered"));

        HandWrittenBreaker handWritten = new HandWrittenBreaker(config.redis());
        RedisBreaker guard = new RedisBreaker(config.redis(), new SimpleMeterRegistry());
        Map<String, Function<Supplier<Uni<String>>, Uni<String>>> contestants = new LinkedHashMap<>();
        contestants.put("no breaker", command -> command.get().onFailure().recoverWithItem(UNAVAILABLE));
        contestants.put("hand-written", handWritten::call);
        contestants.put("Guard", command -> guard.call(command).onFailure().recoverWithItem(failure -> {
            guard.failed(failure);
            return UNAVAILABLE;
        }));

        for (Map.Entry<String, Function<String, Uni<String>>> target : targets.entrySet()) {
            Map<String, long[]> nanos = new LinkedHashMap<>();
            contestants.keySet().forEach(name -> nanos.put(name, new long[calls * ROUNDS]));
            for (int round = -1; round < ROUNDS; round++) { // round -1 warms up
                for (Map.Entry<String, Function<Supplier<Uni<String>>, Uni<String>>> contestant : contestants
                        .entrySet()) {
                    for (int i = 0; i < calls; i++) {
                        String key = contestant.getKey() + "-" + round + "-" + i;
                        long started = System.nanoTime();
                        String answer = contestant.getValue().apply(() -> target.getValue().apply(key)).await()
                                .atMost(Duration.ofSeconds(10));
                        long took = System.nanoTime() - started;
                        assertNotEquals(UNAVAILABLE, answer, contestant.getKey() + " fell back: its figure is void");
                        if (round >= 0) {
                            nanos.get(contestant.getKey())[round * calls + i] = took;
                        }
                    }
                }
            }
            nanos.forEach((name, samples) -> {
                Arrays.sort(samples);
                System.out.printf("breaker cost, %s, %s: median %.2f µs, p90 %.2f µs per call (%d calls)%n",
                        target.getKey(), name, samples[samples.length / 2] / 1000.0,
                        samples[samples.length * 9 / 10] / 1000.0, samples.length);
            });
        }
    }

    /** The shutter's breaker before issue 29, as it was: failures in a row counted, an instant it stays open until. */
    private static final class HandWrittenBreaker {

        private final IdempotencyConfig.Redis config;
        private final AtomicBoolean healthy = new AtomicBoolean(true);
        private final AtomicInteger failuresInARow = new AtomicInteger();
        private volatile long openUntilNanos = System.nanoTime();

        HandWrittenBreaker(IdempotencyConfig.Redis config) {
            this.config = config;
        }

        Uni<String> call(Supplier<Uni<String>> command) {
            if (System.nanoTime() - openUntilNanos < 0) {
                return Uni.createFrom().item(UNAVAILABLE);
            }
            return command.get().invoke(ignored -> {
                failuresInARow.set(0);
                healthy.getAndSet(true);
            }).onFailure().recoverWithItem(failure -> {
                if (failuresInARow.incrementAndGet() >= config.breakerFailures()) {
                    failuresInARow.set(config.breakerFailures() - 1);
                    openUntilNanos = System.nanoTime() + config.breakerOpen().toNanos();
                    healthy.getAndSet(false);
                }
                return UNAVAILABLE;
            });
        }
    }
}
