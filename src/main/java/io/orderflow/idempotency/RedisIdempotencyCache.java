package io.orderflow.idempotency;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.Reply;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.value.ReactiveValueCommands;
import io.quarkus.redis.datasource.value.SetArgs;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * Redis as a fast shutter in front of the database: {@code SET idem:{scope}:{key} p:{fingerprint} NX GET EX ttl}
 * claims a key in one round trip and, when the key is already there, returns what stands there — an in-flight
 * marker or a cached completed response. Redis only ever saves work: every failure, timeout or miss answers
 * {@link Peek.Kind#UNAVAILABLE} or {@link Peek.Kind#CLAIMED}, and the database decides.
 *
 * <p>Every command goes through a {@link RedisBreaker}: while it is open the shutter answers UNAVAILABLE without
 * calling Redis.
 */
// @Startup: its metrics exist from startup, at zero, for the alerts (k8s/monitoring)
@Startup
@ApplicationScoped
public class RedisIdempotencyCache {

    private static final String PENDING = "p:";
    private static final String DONE = "d:";
    private static final long POLL_MILLIS = 15;

    /** What Redis knew about a key when it was claimed. */
    public record Peek(Kind kind, String fingerprint, Reply reply) {
        public enum Kind {
            /** We set the marker: nobody is known to hold the key. */
            CLAIMED,
            /** Another request holds the key right now (or crashed holding it). */
            IN_FLIGHT,
            /** The key completed; here is its response. */
            DONE,
            /** Redis did not answer in time or is off: go to the database. */
            UNAVAILABLE
        }

        /**
         * True when the holder's fingerprint is known and is not this request's: waiting for its answer cannot make
         * this request a repeat of it, so only the database's verdict is worth having.
         */
        boolean differsFrom(KeyClaim claim) {
            return kind == Kind.IN_FLIGHT && fingerprint != null && !fingerprint.equals(claim.fingerprint());
        }

        static final Peek CLAIMED_PEEK = new Peek(Kind.CLAIMED, null, null);
        static final Peek UNAVAILABLE_PEEK = new Peek(Kind.UNAVAILABLE, null, null);
    }

    private final ReactiveValueCommands<String, String> values;
    private final IdempotencyConfig.Redis config;
    private final Counter fallbacks;
    private final RedisBreaker breaker;

    public RedisIdempotencyCache(ReactiveRedisDataSource redis, IdempotencyConfig config, MeterRegistry registry) {
        this.values = redis.value(String.class);
        this.config = config.redis();
        this.fallbacks = Counter.builder("orderflow.idempotency.redis.fallbacks")
                .description("Requests that went on without Redis because it failed or was too slow")
                .register(registry);
        this.breaker = new RedisBreaker(this.config, registry);
    }

    public Uni<Peek> claim(KeyClaim claim) {
        if (!config.enabled()) {
            fallbacks.increment();
            return Uni.createFrom().item(Peek.UNAVAILABLE_PEEK);
        }
        SetArgs args = new SetArgs().nx().ex(config.pendingTtl());
        return bounded(() -> values.setGet(redisKey(claim), PENDING + claim.fingerprint(), args))
                .map(RedisIdempotencyCache::peek)
                .onFailure().recoverWithItem(failure -> {
                    // a refused claim is a request going on without Redis too
                    fallbacks.increment();
                    breaker.failed(failure);
                    return Peek.UNAVAILABLE_PEEK;
                });
    }

    /**
     * Claims the key; while another request with the same body holds it, keeps asking (every {@value #POLL_MILLIS}
     * ms, up to the configured in-flight wait) so that a concurrent repeat is answered with the first response, not
     * an error. A holder with another body is reported at once.
     */
    public Uni<Peek> claimOrAwait(KeyClaim claim, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        return claimUntil(claim, deadline);
    }

    private Uni<Peek> claimUntil(KeyClaim claim, long deadline) {
        return claim(claim).chain(peek -> {
            if (peek.kind() != Peek.Kind.IN_FLIGHT || System.nanoTime() > deadline || peek.differsFrom(claim)) {
                return Uni.createFrom().item(peek);
            }
            return Uni.createFrom().voidItem().onItem().delayIt().by(Duration.ofMillis(POLL_MILLIS))
                    .chain(() -> claimUntil(claim, deadline));
        });
    }

    /** Caches a completed response; a failure here costs only a database round trip later. */
    public Uni<Void> remember(KeyClaim claim, Reply reply) {
        if (!config.enabled()) {
            return Uni.createFrom().voidItem();
        }
        Duration ttl = Duration.between(Instant.now(), claim.expiresAt());
        if (ttl.compareTo(config.cacheTtl()) > 0) {
            ttl = config.cacheTtl();
        }
        if (ttl.getSeconds() < 1) {
            return release(claim);
        }
        SetArgs args = new SetArgs().ex(ttl);
        return bounded(() -> values.set(redisKey(claim), DONE + encode(claim.fingerprint(), reply), args))
                .onFailure().recoverWithItem(failure -> unavailable(failure));
    }

    /** Drops the in-flight marker of a request whose database work failed, so a retry is not held up. */
    public Uni<Void> release(KeyClaim claim) {
        if (!config.enabled()) {
            return Uni.createFrom().voidItem();
        }
        return bounded(() -> values.getdel(redisKey(claim))).replaceWithVoid()
                .onFailure().recoverWithItem(failure -> unavailable(failure));
    }

    /** True while the breaker is open. */
    public boolean isBypassed() {
        return breaker.isOpen();
    }

    /** The command through the breaker, each call bounded by the configured timeout (a timeout is a failure). */
    private <T> Uni<T> bounded(Supplier<Uni<T>> command) {
        return breaker.call(() -> command.get().ifNoItem().after(config.timeout()).fail());
    }

    /**
     * A cache write or release that Redis failed is counted as a fallback; one the open breaker refused is not (its
     * request was counted when its claim was refused).
     */
    private Void unavailable(Throwable failure) {
        if (!RedisBreaker.refused(failure)) {
            fallbacks.increment();
            breaker.failed(failure);
        }
        return null;
    }

    private static String redisKey(KeyClaim claim) {
        return "idem:" + claim.scope() + ":" + claim.key();
    }

    private static Peek peek(String previous) {
        if (previous == null) {
            return Peek.CLAIMED_PEEK;
        }
        if (previous.startsWith(DONE)) {
            JsonObject stored = new JsonObject(previous.substring(DONE.length()));
            return new Peek(Peek.Kind.DONE, stored.getString("f"), ReplyCodec.decode(stored));
        }
        String fingerprint = previous.startsWith(PENDING) ? previous.substring(PENDING.length()) : null;
        return new Peek(Peek.Kind.IN_FLIGHT, fingerprint, null);
    }

    private static String encode(String fingerprint, Reply reply) {
        return ReplyCodec.encode(reply).put("f", fingerprint).encode();
    }
}
