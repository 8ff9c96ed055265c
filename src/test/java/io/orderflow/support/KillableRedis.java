package io.orderflow.support;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * A Redis server of the test's own (the real {@code redis-server} binary, a child process on a free port), so a test
 * can really stop it mid-way and start it again on the same port. The service uses its database
 * {@value TestServices#QUARKUS_REDIS_DB}, as every {@code @QuarkusTest} does on the shared test Redis.
 */
public class KillableRedis implements QuarkusTestResourceLifecycleManager {

    private static RedisServer server;

    @Override
    public Map<String, String> start() {
        server = RedisServer.start(PrivateServices.jvmHome().resolve("killable-redis"));
        return Map.of("quarkus.redis.hosts",
                new TestServices.Redis("127.0.0.1", server.port()).url(TestServices.QUARKUS_REDIS_DB));
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stop();
            server = null;
        }
    }

    public static void startServer() {
        server.restart();
    }

    public static void stopServer() {
        server.stop();
    }
}
