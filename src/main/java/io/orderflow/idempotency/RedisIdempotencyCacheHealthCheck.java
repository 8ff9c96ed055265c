package io.orderflow.idempotency;

import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Reports Redis in readiness without ever failing it: Redis is a speed layer, so an instance without it still
 * serves correctly (slower) and must stay in rotation. {@code redis: degraded} tells operators what is going on;
 * the output is public, so it names no exception (the reason is in the log and the fallback metrics).
 */
@Readiness
@ApplicationScoped
public class RedisIdempotencyCacheHealthCheck implements AsyncHealthCheck {

    private final ReactiveRedisDataSource redis;
    private final IdempotencyConfig config;

    public RedisIdempotencyCacheHealthCheck(ReactiveRedisDataSource redis, IdempotencyConfig config) {
        this.redis = redis;
        this.config = config;
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        if (!config.redis().enabled()) {
            return Uni.createFrom().item(up("disabled"));
        }
        Duration timeout = config.redis().timeout().multipliedBy(4);
        return redis.execute("PING").ifNoItem().after(timeout).fail()
                .map(pong -> up("up"))
                .onFailure().recoverWithItem(failure -> up("degraded"));
    }

    private static HealthCheckResponse up(String redisState) {
        return HealthCheckResponse.named("idempotency-fast-path").up().withData("redis", redisState).build();
    }
}
