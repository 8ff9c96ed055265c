package io.orderflow.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The prod overlay's highly available dependencies, checked against each other and against what the service is
 * told (docs/high-availability.md): a CloudNativePG Cluster of three instances with one synchronous standby, the
 * service pointed at its read-write Service; Redis with three Sentinels, the service in Sentinel mode listing
 * exactly those Sentinels and the master name they monitor; one Secret for the Redis password, shared by all; and
 * only placeholders in the Secret templates. Rendered with kubectl kustomize where kubectl is installed.
 */
class HighAvailabilityManifestsTest {

    private static final Path PROD = Path.of("k8s/overlays/prod");
    private static final String PLACEHOLDER = "CHANGE_ME";

    @Test
    void shouldRunPostgresAsThreeInstancesWithASynchronousStandbyAndSendTheServiceToItsReadWriteService()
            throws Exception {
        for (List<HasMetadata> objects : prodObjects()) {
            GenericKubernetesResource cluster = objects.stream().filter(GenericKubernetesResource.class::isInstance)
                    .map(GenericKubernetesResource.class::cast).filter(o -> "Cluster".equals(o.getKind()))
                    .findFirst().orElseThrow(() -> new AssertionError("no CloudNativePG Cluster in the prod overlay"));
            Map<?, ?> spec = (Map<?, ?>) cluster.getAdditionalProperties().get("spec");
            assertEquals(3, ((Number) spec.get("instances")).intValue(), "instances");
            Map<?, ?> synchronous = (Map<?, ?>) ((Map<?, ?>) spec.get("postgresql")).get("synchronous");
            assertEquals(1, ((Number) synchronous.get("number")).intValue(), "synchronous standbys");
            assertEquals("required", synchronous.get("dataDurability"),
                    "a commit waits for the standby: the failover loses nothing acknowledged");

            Map<String, String> config = appConfig(objects);
            String rw = cluster.getMetadata().getName() + "-rw";
            assertEquals(rw, URI.create(config.get("QUARKUS_DATASOURCE_REACTIVE_URL")).getHost(), "reactive URL");
            assertEquals(rw, URI.create(config.get("QUARKUS_DATASOURCE_JDBC_URL").substring("jdbc:".length()))
                    .getHost(), "JDBC URL (Flyway)");
            List<String> secrets = envFromSecrets(appContainer(objects));
            assertTrue(secrets.contains(cluster.getMetadata().getName() + "-app/username")
                    && secrets.contains(cluster.getMetadata().getName() + "-app/password"),
                    "the credentials come from the Secret CloudNativePG creates: " + secrets);
        }
    }

    @Test
    void shouldFindTheRedisMasterThroughExactlyTheThreeSentinels() throws Exception {
        for (List<HasMetadata> objects : prodObjects()) {
            Map<String, String> config = appConfig(objects);
            assertEquals("sentinel", config.get("QUARKUS_REDIS_CLIENT_TYPE"));
            assertEquals("true", config.get("QUARKUS_REDIS_AUTO_FAILOVER"), "the client follows +switch-master");

            StatefulSet sentinels = statefulSet(objects, "orderflow-redis-sentinel");
            int port = sentinels.getSpec().getTemplate().getSpec().getContainers().get(0).getPorts().get(0)
                    .getContainerPort();
            List<String> expected = IntStream.range(0, sentinels.getSpec().getReplicas())
                    .mapToObj(i -> "redis://" + sentinels.getMetadata().getName() + "-" + i + "."
                            + sentinels.getSpec().getServiceName() + ":" + port).toList();
            assertEquals(3, expected.size(), "three Sentinels: a quorum of two survives one");
            assertEquals(expected, Arrays.asList(config.get("QUARKUS_REDIS_HOSTS").trim().split(",")),
                    "the service lists the Sentinels' pods");

            ConfigMap scripts = objects.stream().filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast)
                    .filter(c -> c.getMetadata().getName().equals("orderflow-redis-scripts")).findFirst()
                    .orElseThrow();
            Matcher monitor = Pattern.compile("sentinel monitor (\\S+) ").matcher(scripts.getData().get("sentinel.sh"));
            assertTrue(monitor.find(), "the Sentinels monitor a master");
            assertEquals(monitor.group(1), config.get("QUARKUS_REDIS_MASTER_NAME"), "the master's name");

            String password = "orderflow-redis/password";
            assertTrue(envFromSecrets(appContainer(objects)).contains(password), "the service's Redis password");
            for (String name : List.of("orderflow-redis", "orderflow-redis-sentinel")) {
                assertTrue(envFromSecrets(statefulSet(objects, name).getSpec().getTemplate().getSpec()
                        .getContainers().get(0)).contains(password), name + " requires the same password");
            }

            NetworkPolicy policy = objects.stream().filter(NetworkPolicy.class::isInstance)
                    .map(NetworkPolicy.class::cast).findFirst().orElseThrow();
            assertTrue(policy.getSpec().getEgress().stream().flatMap(rule -> rule.getPorts().stream())
                    .anyMatch(p -> p.getPort().getIntVal() == port), "the service may reach the Sentinels");
        }
    }

    @Test
    void shouldHoldOnlyPlaceholdersInEverySecretTemplate() throws IOException {
        List<Path> templates;
        try (Stream<Path> files = Files.walk(Path.of("k8s"))) {
            templates = files.filter(f -> f.getFileName().toString().endsWith(".template.yaml")).sorted().toList();
        }
        assertTrue(templates.contains(PROD.resolve("secrets.template.yaml")), "the prod overlay's Secret templates");
        for (Path template : templates) {
            for (HasMetadata object : KubernetesManifestsTest.parse(template)) {
                Secret secret = (Secret) object;
                assertFalse(secret.getStringData().isEmpty(), template + " " + secret.getMetadata().getName());
                // A file setting names where its Secret is mounted, no secret (ProviderManifestsTest checks it).
                secret.getStringData().forEach((key, value) -> assertTrue(PLACEHOLDER.equals(value)
                        || value.startsWith("/etc/orderflow/"),
                        template + ": " + secret.getMetadata().getName() + " must hold placeholders, not a " + key));
            }
            String kustomization = Files.readString(template.resolveSibling("kustomization.yaml"));
            assertFalse(Pattern.compile("(?m)^\\s*-\\s*" + Pattern.quote(template.getFileName().toString()) + "\\s*$")
                    .matcher(kustomization).find(), template + " must never be applied with the overlay");
        }
    }

    // ----------------------------------------------------------------------------------------------------------

    /** The prod overlay as files (patches merged by hand where needed) and, with kubectl, as rendered. */
    private static List<List<HasMetadata>> prodObjects() throws Exception {
        return KubernetesManifestsTest.views(PROD, List.of("cloudnativepg-cluster.yaml", "configmap.yaml",
                "deployment.yaml", "networkpolicy.yaml", "redis-sentinel.yaml"));
    }

    private static Map<String, String> appConfig(List<HasMetadata> objects) {
        return objects.stream().filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast)
                .filter(c -> c.getMetadata().getName().equals("orderflow-config")).findFirst()
                .orElseThrow(() -> new AssertionError("no orderflow-config")).getData();
    }

    private static Container appContainer(List<HasMetadata> objects) {
        Deployment deployment = objects.stream().filter(Deployment.class::isInstance).map(Deployment.class::cast)
                .findFirst().orElseThrow();
        return deployment.getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(c -> "orderflow".equals(c.getName())).findFirst().orElseThrow();
    }

    private static StatefulSet statefulSet(List<HasMetadata> objects, String name) {
        return objects.stream().filter(StatefulSet.class::isInstance).map(StatefulSet.class::cast)
                .filter(s -> s.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no StatefulSet " + name));
    }

    /** The container's variables read from Secrets, as "secret/key". */
    private static List<String> envFromSecrets(Container container) {
        return Optional.ofNullable(container.getEnv()).orElse(List.of()).stream().map(EnvVar::getValueFrom)
                .filter(v -> v != null && v.getSecretKeyRef() != null)
                .map(v -> v.getSecretKeyRef().getName() + "/" + v.getSecretKeyRef().getKey()).toList();
    }
}
