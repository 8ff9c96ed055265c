# Multi-stage build: Maven builds the Quarkus fast-jar, a slim JRE image runs it.
#   docker build -t orderflow:dev .

FROM eclipse-temurin:17-jdk AS build
WORKDIR /build

# Dependencies first: this layer is rebuilt only when the pom or the wrapper changes, not on every source edit.
# Quarkus's own go-offline: the dependency plugin's also collects optional dependencies of the extensions, and fails
# on one whose parent pom Maven Central does not serve (quarkus-rest-kotlin-parent 3.33.2).
COPY mvnw pom.xml ./
COPY .mvn .mvn
RUN chmod +x mvnw && ./mvnw -B -q quarkus:go-offline

# The contract: the build serves the top-level openapi.yaml as META-INF/openapi.yaml, and the service refuses to start
# without it. ImageBuildContextIT builds from exactly these COPYs (and .dockerignore) and starts the result.
COPY openapi.yaml ./
COPY src src
RUN ./mvnw -B -DskipTests package


FROM eclipse-temurin:17-jre

# A numeric uid, so that Kubernetes' runAsNonRoot can verify it without resolving a user name.
RUN groupadd --system --gid 185 orderflow \
    && useradd --system --uid 185 --gid 185 --home-dir /deployments --no-create-home orderflow

WORKDIR /deployments

# Fast-jar layout, least to most often changed, so a code change rebuilds only the last layers. The files stay
# owned by root: the app user can read them, never rewrite them.
COPY --from=build /build/target/quarkus-app/lib/ /deployments/lib/
COPY --from=build /build/target/quarkus-app/*.jar /deployments/
COPY --from=build /build/target/quarkus-app/app/ /deployments/app/
COPY --from=build /build/target/quarkus-app/quarkus/ /deployments/quarkus/

USER 185
# 8080: the API (quarkus.http.port); 9000: health and metrics, the management interface (quarkus.management.port)
EXPOSE 8080 9000

# The JVM settings bench/versus.sh --memory measured best: the lowest RSS that kept every scenario's throughput within
# 5% of its best (docs/benchmarks.md, "Memory as shipped"): a fixed small heap with the serial collector (what the JVM
# picks by itself in a small container, without G1's own structures), a bounded code cache, smaller thread stacks,
# and two malloc arenas instead of one per core and thread. JBoss LogManager must be set before any logging starts.
ENV MALLOC_ARENA_MAX=2
ENV JAVA_OPTS="-Xmx160m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -Xss512k -Djava.util.logging.manager=org.jboss.logmanager.LogManager"

# exec makes the JVM PID 1, so it receives SIGTERM and Quarkus shuts down gracefully. Its descriptor limit is the
# runtime's (ulimit -n, commonly 1,048,576): keep it well above quarkus.http.limits.max-connections (10,000).
ENTRYPOINT ["sh", "-c", "exec java $JAVA_OPTS -jar /deployments/quarkus-run.jar"]
