package io.orderflow.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The Docker path of {@link TestServices}: PostgreSQL 15 (with the private cluster's settings) and Redis 7 in
 * containers, stopped when the JVM exits.
 */
final class ContainerServices {

    static final String POSTGRES_IMAGE = "postgres:15-alpine";
    static final String REDIS_IMAGE = "redis:7-alpine";
    /** The ports the servers listen on inside their containers (the tests see mapped ports). */
    static final int POSTGRES_PORT = PostgreSQLContainer.POSTGRESQL_PORT;
    static final int REDIS_PORT = 6379;

    private ContainerServices() {
    }

    static boolean dockerAvailable() {
        // ask Testcontainers only where an engine may exist; it logs an error on every machine without one
        boolean maybe = System.getenv("DOCKER_HOST") != null || Files.exists(Path.of("/var/run/docker.sock"));
        if (!maybe) {
            return false;
        }
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** The PostgreSQL container, not started: the private cluster's settings, so both paths behave alike. */
    static PostgreSQLContainer postgres() {
        List<String> command = new ArrayList<>(List.of("postgres"));
        PrivateServices.POSTGRES_SETTINGS.forEach(setting -> command.addAll(List.of("-c", setting)));
        return new PostgreSQLContainer(POSTGRES_IMAGE).withDatabaseName(TestServices.QUARKUS_DATABASE)
                .withCommand(command.toArray(String[]::new));
    }

    static TestServices start() {
        PostgreSQLContainer postgres = postgres();
        GenericContainer<?> redis = new GenericContainer<>(REDIS_IMAGE).withExposedPorts(REDIS_PORT);
        postgres.start();
        redis.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            redis.stop();
            postgres.stop();
        }, "stop-test-containers"));
        TestServices services = addresses(postgres.getHost(), postgres.getMappedPort(POSTGRES_PORT),
                postgres.getUsername(), postgres.getPassword(), redis.getHost(), redis.getMappedPort(REDIS_PORT));
        services.createDatabaseIfMissing(TestServices.IT_DATABASE);
        return services;
    }

    /** The started containers as every consumer sees them: their host and mapped ports, nothing else. */
    static TestServices addresses(String pgHost, int pgMappedPort, String user, String password, String redisHost,
            int redisMappedPort) {
        return new TestServices(TestServices.Origin.CONTAINERS,
                new TestServices.Postgres(pgHost, pgMappedPort, user, password),
                new TestServices.Redis(redisHost, redisMappedPort));
    }
}
