package io.orderflow.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The overlays as a platform team runs them (issue 44): every image pinned by digest, the tag beside it; the service
 * scraped on its management port; token verification configured in every overlay; the database reached as a role of
 * its own over verified TLS, backed up with WAL archiving on a schedule and monitored; Redis with an exporter that is
 * scraped; orderflow-secrets only where something in it is used. The overlays are rendered with kubectl kustomize.
 */
class PlatformManifestsTest {

    private static final Path K8S = Path.of("k8s");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Pattern DIGEST = Pattern.compile("@sha256:[0-9a-f]{64}$");
    /** Built here and loaded into the node (kind load): it has no registry digest. */
    private static final String LOCAL_DEV_IMAGE = "orderflow:dev";

    @Test
    void shouldPinEveryImageByDigestWithItsTagInAComment() throws Exception {
        for (String overlay : KubernetesManifestsTest.OVERLAYS) {
            for (String image : images(rendered(overlay))) {
                if (!(overlay.equals("dev") && image.equals(LOCAL_DEV_IMAGE))) {
                    assertTrue(DIGEST.matcher(image).find(), overlay + ": " + image + " is not pinned by digest");
                }
            }
        }
        Pattern pinned = Pattern.compile("(?m)^\\s*(image|imageName):\\s*(\\S+@sha256:[0-9a-f]{64})(.*)$");
        try (Stream<Path> files = Files.walk(K8S)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
                Matcher line = pinned.matcher(Files.readString(file));
                while (line.find()) {
                    assertTrue(line.group(3).matches("\\s*# \\S+:\\S+"),
                            file + ": " + line.group(2) + " keeps its tag in a comment (# image:tag)");
                }
            }
        }
    }

    @Test
    void shouldScrapeTheManagementPortWithAServiceMonitor() throws Exception {
        for (String overlay : List.of("prod", "prod-gateway")) {
            List<JsonNode> objects = rendered(overlay);
            JsonNode monitor = one(objects, "ServiceMonitor", "orderflow");
            JsonNode service = one(objects, "Service", "orderflow");
            monitor.at("/spec/selector/matchLabels").properties().forEach(label -> assertEquals(
                    label.getValue().asText(), service.at("/metadata/labels").path(label.getKey()).asText(),
                    overlay + ": the ServiceMonitor selects the Service by " + label.getKey()));
            JsonNode endpoint = monitor.at("/spec/endpoints/0");
            assertEquals("management", endpoint.path("port").asText(), overlay + ": scraped on the management port");
            assertEquals("/q/metrics", endpoint.path("path").asText());
            assertTrue(contains(service.at("/spec/ports"), port -> port.path("name").asText().equals("management")),
                    overlay + ": the Service names the management port");
        }
    }

    @Test
    void shouldConfigureTokenVerificationInEveryOverlay() throws Exception {
        for (String overlay : KubernetesManifestsTest.OVERLAYS) {
            List<JsonNode> objects = rendered(overlay);
            JsonNode config = one(objects, "ConfigMap", "orderflow-config");
            assertFalse(config.at("/data/MP_JWT_VERIFY_PUBLICKEY_LOCATION").asText().isBlank(),
                    overlay + ": a key to verify tokens (the service refuses to start without one)");
            assertFalse(config.at("/data/MP_JWT_VERIFY_ISSUER").asText().isBlank(), overlay + ": the issuer");
        }
        JsonNode dev = one(rendered("dev"), "ConfigMap", "orderflow-config");
        assertEquals("dev/publicKey.pem", dev.at("/data/MP_JWT_VERIFY_PUBLICKEY_LOCATION").asText(),
                "the dev overlay trusts the dev key pair that dev/mint-token.sh signs with");
    }

    @Test
    void shouldConnectToTheDatabaseAsTheServicesOwnRoleOverVerifiedTls() throws Exception {
        List<JsonNode> objects = rendered("prod");
        JsonNode cluster = one(objects, "Cluster", "orderflow-db");
        JsonNode app = container(one(objects, "Deployment", "orderflow"), "orderflow");
        String serviceSecret = secretOf(app, "QUARKUS_DATASOURCE_USERNAME");
        String ownerSecret = secretOf(app, "QUARKUS_FLYWAY_USERNAME");
        assertEquals(cluster.at("/metadata/name").asText() + "-app", ownerSecret,
                "Flyway migrates as the owner CloudNativePG bootstraps");
        assertTrue(contains(cluster.at("/spec/managed/roles"), role -> role.at("/passwordSecret/name").asText()
                .equals(serviceSecret) && role.path("login").asBoolean()
                && !role.path("superuser").asBoolean() && !role.path("createdb").asBoolean()),
                "CloudNativePG keeps the service's login role with the password of " + serviceSecret);
        assertFalse(serviceSecret.equals(ownerSecret), "the service is not the owner");

        JsonNode config = one(objects, "ConfigMap", "orderflow-config");
        assertEquals("verify-full", config.at("/data/QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE").asText());
        String ca = config.at("/data/QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM_CERTS").asText();
        assertTrue(config.at("/data/QUARKUS_DATASOURCE_JDBC_URL").asText()
                .endsWith("?sslmode=verify-full&sslrootcert=" + ca), "Flyway's JDBC verifies the same CA");
        JsonNode deployment = one(objects, "Deployment", "orderflow");
        String mount = ca.substring(0, ca.lastIndexOf('/'));
        JsonNode caMount = find(app.path("volumeMounts"), m -> m.path("mountPath").asText().equals(mount));
        JsonNode caVolume = find(deployment.at("/spec/template/spec/volumes"),
                v -> v.path("name").asText().equals(caMount.path("name").asText()));
        assertEquals(cluster.at("/metadata/name").asText() + "-ca", caVolume.at("/secret/secretName").asText(),
                "the CA is CloudNativePG's");
    }

    @Test
    void shouldBackUpTheDatabaseWithWalArchivingOnAScheduleAndMonitorIt() throws Exception {
        List<JsonNode> objects = rendered("prod");
        JsonNode cluster = one(objects, "Cluster", "orderflow-db");
        JsonNode store = cluster.at("/spec/backup/barmanObjectStore");
        assertFalse(store.path("destinationPath").asText().isBlank(), "base backups and WAL go to an object store");
        assertFalse(store.at("/wal/compression").isMissingNode(), "WAL is archived");
        assertFalse(cluster.at("/spec/backup/retentionPolicy").asText().isBlank(), "a retention policy");
        assertTrue(cluster.at("/spec/monitoring/enablePodMonitor").asBoolean(), "a PodMonitor for the instances");
        JsonNode scheduled = objects.stream().filter(o -> o.path("kind").asText().equals("ScheduledBackup"))
                .findFirst().orElseThrow(() -> new AssertionError("no ScheduledBackup"));
        assertEquals("orderflow-db", scheduled.at("/spec/cluster/name").asText());
        assertEquals(6, scheduled.at("/spec/schedule").asText().split(" ").length,
                "CloudNativePG's schedule has six fields, seconds first");
    }

    @Test
    void shouldScrapeRedisThroughAnExporterBesideEachRedis() throws Exception {
        List<JsonNode> objects = rendered("prod");
        JsonNode redis = one(objects, "StatefulSet", "orderflow-redis");
        JsonNode exporter = container(redis, "redis-exporter");
        JsonNode monitor = one(objects, "PodMonitor", "orderflow-redis");
        String port = monitor.at("/spec/podMetricsEndpoints/0/port").asText();
        assertTrue(contains(exporter.path("ports"), p -> p.path("name").asText().equals(port)),
                "the PodMonitor scrapes the exporter's port " + port);
        monitor.at("/spec/selector/matchLabels").properties().forEach(label -> assertEquals(
                label.getValue().asText(), redis.at("/spec/template/metadata/labels").path(label.getKey()).asText(),
                "the PodMonitor selects the Redis pods"));
        assertEquals("orderflow-redis", secretOf(exporter, "REDIS_PASSWORD"), "with Redis's password");
    }

    @Test
    void shouldNeedOrderflowSecretsOnlyWhereSomethingInItIsUsed() throws Exception {
        for (String overlay : List.of("prod", "prod-gateway")) {
            String deployment = YAML.writeValueAsString(one(rendered(overlay), "Deployment", "orderflow"));
            assertFalse(deployment.contains("orderflow-secrets"), overlay + " has nothing in orderflow-secrets");
        }
    }

    // --- helpers ---

    /** The overlay as kubectl kustomize renders it; without kubectl the test is skipped, saying so. */
    private static List<JsonNode> rendered(String overlay) throws Exception {
        Optional<Path> kubectl = KubernetesManifestsTest.onPath("kubectl");
        assumeTrue(kubectl.isPresent(), "kubectl is not on PATH: the overlays cannot be rendered");
        String yaml = KubernetesManifestsTest.kustomize(kubectl.get(), K8S.resolve("overlays").resolve(overlay));
        try (var documents = YAML.readerFor(JsonNode.class).<JsonNode>readValues(yaml)) {
            return documents.readAll();
        }
    }

    private static JsonNode one(List<JsonNode> objects, String kind, String name) {
        List<JsonNode> found = objects.stream().filter(o -> o.path("kind").asText().equals(kind)
                && o.at("/metadata/name").asText().equals(name)).toList();
        assertEquals(1, found.size(), "one " + kind + " " + name);
        return found.get(0);
    }

    private static JsonNode container(JsonNode workload, String name) {
        return find(workload.at("/spec/template/spec/containers"), c -> c.path("name").asText().equals(name));
    }

    /** The Secret a container's variable comes from (env valueFrom.secretKeyRef). */
    private static String secretOf(JsonNode container, String variable) {
        return find(container.path("env"), e -> e.path("name").asText().equals(variable))
                .at("/valueFrom/secretKeyRef/name").asText();
    }

    private static List<String> images(List<JsonNode> objects) throws IOException {
        List<String> images = new ArrayList<>();
        Matcher image = Pattern.compile("(?m)^\\s*(?:image|imageName): (\\S+)$").matcher(
                YAML.writeValueAsString(objects));
        while (image.find()) {
            images.add(image.group(1).replace("\"", ""));
        }
        assertFalse(images.isEmpty(), "no image found");
        return images;
    }

    private static JsonNode find(JsonNode array, Predicate<JsonNode> test) {
        for (JsonNode item : array) {
            if (test.test(item)) {
                return item;
            }
        }
        throw new AssertionError("none found in " + array);
    }

    private static boolean contains(JsonNode array, Predicate<JsonNode> test) {
        for (JsonNode item : array) {
            if (test.test(item)) {
                return true;
            }
        }
        return false;
    }
}
