package io.orderflow.idempotency;

import static io.orderflow.support.OrderMother.newKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.orderflow.idempotency.RedisIdempotencyCache.Peek.Kind;
import io.orderflow.support.Await;
import io.orderflow.support.CapturedLog;
import io.orderflow.support.CountingRedisProxy;
import io.orderflow.support.TestServices;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.runtime.datasource.ReactiveRedisDataSourceImpl;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.RedisAPI;
import io.vertx.redis.client.RedisOptions;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shutter's circuit breaker against a real Redis, every command counted on the wire by a proxy: failures in a
 * row open it, nothing reaches Redis while it is open, a half-open breaker lets exactly one probe through and that
 * probe's success closes it. Redis fails for real: a key holding a list makes {@code SET … GET} answer WRONGTYPE.
 */
@QuarkusTest
class RedisBreakerTest {

    private static final int FAILURES = 3;
    private static final String OPENINGS = "orderflow.idempotency.redis.breaker.openings";
    private static final String FALLBACKS = "orderflow.idempotency.redis.fallbacks";

    @Inject
    Vertx vertx;

    @Inject
    RedisDataSource redis;

    @Inject
    IdempotencyConfig config;

    private final String scope = "breaker-" + UUID.randomUUID();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private CountingRedisProxy proxy;
    private Redis client;

    @BeforeEach
    void throughACountingProxy() {
        proxy = new CountingRedisProxy();
        client = Redis.createClient(vertx, new RedisOptions()
                .setConnectionString(proxy.url(TestServices.QUARKUS_REDIS_DB)));
    }

    @AfterEach
    void close() {
        client.close();
        proxy.close();
    }

    @Test
    void shouldOpenAfterFailuresInARowAndSendNothingToRedisWhileOpen() {
        RedisIdempotencyCache shutter = shutter(Duration.ofMinutes(1));
        String poisoned = poisonedKey();
        long sets = proxy.count("SET");
        assertEquals(Kind.UNAVAILABLE, claim(shutter, poisoned));
        assertEquals(Kind.UNAVAILABLE, claim(shutter, poisoned));
        assertEquals(Kind.CLAIMED, claim(shutter, newKey()));
        assertEquals(Kind.UNAVAILABLE, claim(shutter, poisoned));
        assertEquals(Kind.UNAVAILABLE, claim(shutter, poisoned));
        assertFalse(shutter.isBypassed(), "two failures, a success, two failures: never three in a row");
        assertEquals(0, count(OPENINGS));

        try (CapturedLog log = CapturedLog.start()) {
            assertEquals(Kind.UNAVAILABLE, claim(shutter, poisoned));
            assertTrue(shutter.isBypassed(), "the third failure in a row opens the breaker");
            assertEquals(1, warnings(log).size(), "one WARN when it opens: " + warnings(log));
            assertTrue(warnings(log).get(0).contains("Redis failing (") && warnings(log).get(0).contains("WRONGTYPE"),
                    warnings(log).get(0));
        }
        assertEquals(1, count(OPENINGS));
        assertEquals(sets + 6, proxy.count("SET"), "every command so far reached Redis");

        double fallbacks = count(FALLBACKS);
        for (int i = 0; i < 5; i++) {
            assertEquals(Kind.UNAVAILABLE, claim(shutter, newKey()), "a new key, while the breaker is open");
        }
        assertEquals(sets + 6, proxy.count("SET"), "no command reaches Redis while the breaker is open");
        assertEquals(fallbacks + 5, count(FALLBACKS), "each refused claim went on without Redis");
        assertEquals(1, count(OPENINGS));
    }

    @Test
    void shouldLetExactlyOneProbeThroughWhenHalfOpenAndCloseWhenItSucceeds() {
        RedisIdempotencyCache shutter = shutter(Duration.ofMillis(300));
        String poisoned = poisonedKey();
        for (int i = 0; i < FAILURES; i++) {
            claim(shutter, poisoned);
        }
        assertTrue(shutter.isBypassed(), "failures in a row open the breaker");
        awaitHalfOpen(shutter);
        long sets = proxy.count("SET");
        assertEquals(Kind.UNAVAILABLE, claim(shutter, poisoned), "the probe fails");
        assertTrue(shutter.isBypassed(), "a failed probe opens the breaker again");
        assertEquals(2, count(OPENINGS));
        assertEquals(sets + 1, proxy.count("SET"));

        awaitHalfOpen(shutter);
        try (CapturedLog log = CapturedLog.start()) {
            proxy.freeze(); // the probe's command waits on the wire, so the claims behind it arrive while it is out
            List<CompletableFuture<Kind>> claims = IntStream.range(0, 4)
                    .mapToObj(i -> shutter.claim(claimOf(newKey())).map(RedisIdempotencyCache.Peek::kind)
                            .subscribeAsCompletionStage())
                    .toList();
            Await.until(() -> claims.stream().filter(CompletableFuture::isDone).count() == 3,
                    "the three claims behind the probe to be refused at once");
            assertEquals(3, claims.stream().filter(c -> c.isDone() && c.join() == Kind.UNAVAILABLE).count());
            proxy.unfreeze();
            List<Kind> kinds = claims.stream().map(c -> c.orTimeout(10, TimeUnit.SECONDS).join()).toList();
            assertEquals(1, kinds.stream().filter(k -> k == Kind.CLAIMED).count(), "the probe answered: " + kinds);
            assertEquals(sets + 2, proxy.count("SET"), "exactly one probe reached Redis");

            assertFalse(shutter.isBypassed(), "the probe's success closed the breaker");
            assertEquals(Kind.CLAIMED, claim(shutter, newKey()));
            assertEquals(Kind.CLAIMED, claim(shutter, newKey()));
            assertEquals(sets + 4, proxy.count("SET"), "closed: every command goes to Redis again");
            assertEquals(2, count(OPENINGS));
            assertTrue(log.atLeast(Level.INFO).stream().anyMatch(line -> line.contains("Redis answers again")),
                    "the closing is logged: " + log.atLeast(Level.INFO));
        }
    }

    @Test
    void shouldCallRedisOnTheEventLoopThreadThatSubscribedWithoutOffload() {
        RedisBreaker breaker = new RedisBreaker(config.redis(), registry);
        CompletableFuture<String> subscriber = new CompletableFuture<>();
        CompletableFuture<String> command = new CompletableFuture<>();
        vertx.getDelegate().getOrCreateContext().runOnContext(ignored -> {
            subscriber.complete(Thread.currentThread().getName());
            breaker.call(() -> {
                String thread = Thread.currentThread().getName();
                command.complete(Context.isOnEventLoopThread() ? thread : thread + " (not an event loop)");
                return Uni.createFrom().item("answered");
            }).subscribe().with(item -> {
            });
        });
        String subscribedOn = subscriber.orTimeout(10, TimeUnit.SECONDS).join();
        assertEquals(subscribedOn, command.orTimeout(10, TimeUnit.SECONDS).join(),
                "the guard calls Redis on the event loop that subscribed, not on another thread");
    }

    /** A shutter of the service's settings through the proxy, its breaker opening for {@code open}. */
    private RedisIdempotencyCache shutter(Duration open) {
        RedisIdempotencyCache shutter = new RedisIdempotencyCache(
                new ReactiveRedisDataSourceImpl(vertx, client, RedisAPI.api(client)), withBreaker(config, open),
                registry);
        // the connection opened (its handshake commands are not SETs): from here the proxy counts claims alone
        assertEquals(Kind.CLAIMED, claim(shutter, newKey()));
        return shutter;
    }

    /** A key whose claim Redis refuses: it holds a list, and SET … GET fails with WRONGTYPE on a non-string. */
    private String poisonedKey() {
        String key = newKey();
        redis.list(String.class).lpush("idem:" + scope + ":" + key, "not a string");
        return key;
    }

    private Kind claim(RedisIdempotencyCache shutter, String key) {
        return shutter.claim(claimOf(key)).await().atMost(Duration.ofSeconds(10)).kind();
    }

    private KeyClaim claimOf(String key) {
        Instant now = Instant.now();
        return new KeyClaim(scope, key, "fingerprint", RetentionTier.ORDERS, now, now.plus(Duration.ofDays(1)), null);
    }

    private static void awaitHalfOpen(RedisIdempotencyCache shutter) {
        Await.until(() -> !shutter.isBypassed(), "the breaker half-open after its open time");
    }

    private double count(String counter) {
        return registry.get(counter).counter().count();
    }

    private static List<String> warnings(CapturedLog log) {
        return log.atLeast(Level.WARNING).stream().filter(line -> line.contains("RedisShutter")).toList();
    }

    /**
     * The service's settings but {@value #FAILURES} failures in a row to open, open for {@code open}, and a command
     * timeout long enough to hold a probe on the frozen proxy.
     */
    private static IdempotencyConfig withBreaker(IdempotencyConfig base, Duration open) {
        IdempotencyConfig.Redis redis = base.redis();
        IdempotencyConfig.Redis tuned = new IdempotencyConfig.Redis() {
            @Override
            public boolean enabled() {
                return true;
            }

            @Override
            public Duration timeout() {
                return Duration.ofSeconds(10);
            }

            @Override
            public Duration pendingTtl() {
                return redis.pendingTtl();
            }

            @Override
            public Duration inFlightWait() {
                return redis.inFlightWait();
            }

            @Override
            public Duration inFlightCheck() {
                return redis.inFlightCheck();
            }

            @Override
            public Duration cacheTtl() {
                return redis.cacheTtl();
            }

            @Override
            public int breakerFailures() {
                return FAILURES;
            }

            @Override
            public Duration breakerOpen() {
                return open;
            }
        };
        return new IdempotencyConfig() {
            @Override
            public Retention retention() {
                return base.retention();
            }

            @Override
            public IdempotencyConfig.Redis redis() {
                return tuned;
            }

            @Override
            public Replica replica() {
                return base.replica();
            }

            @Override
            public Sweeper sweeper() {
                return base.sweeper();
            }

            @Override
            public Records records() {
                return base.records();
            }
        };
    }
}
