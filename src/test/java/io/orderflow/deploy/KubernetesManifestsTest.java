package io.orderflow.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.orderflow.idempotency.IdempotencyConfig;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;
import io.smallrye.config.WithParentName;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Checks the Kubernetes manifests under {@code k8s/} against the application itself (its port, health paths,
 * shutdown timeout and configuration properties), without a cluster or a database. When {@code kubectl} is
 * installed, the overlays are also rendered with {@code kubectl kustomize} and the rendered Deployments checked.
 */
class KubernetesManifestsTest {

    private static final Path K8S = Path.of("k8s");
    private static final Path BASE_DEPLOYMENT = K8S.resolve("base/deployment.yaml");
    private static final Path SECRET_TEMPLATE = K8S.resolve("base/secret.template.yaml");
    private static final Path APPLICATION_PROPERTIES = Path.of("src/main/resources/application.properties");
    static final List<String> OVERLAYS = List.of("dev", "prod", "prod-gateway");
    private static final String PLACEHOLDER = "CHANGE_ME";

    /**
     * Custom resources fabric8 has no class for; every other object, the prometheus-operator's (openshift-model-
     * monitoring) and the Gateway API's included, must parse into its typed class, generated from its schema.
     * CustomResourceSchemasTest validates these and every other custom resource against its CRD's own schema.
     */
    private static final Set<String> CUSTOM_RESOURCES = Set.of("postgresql.cnpg.io/v1 Cluster",
            "postgresql.cnpg.io/v1 ScheduledBackup");
    /** Prometheus's own files under k8s/monitoring (rules and their unit tests): no Kubernetes objects. */
    private static final Set<String> PROMETHEUS_FILES = Set.of("orderflow-rules.test.yaml", "orderflow-slo.test.yaml");

    /**
     * Standard Quarkus properties the app reads although application.properties does not set them. Keep short:
     * every entry must be a documented property of an extension in the pom.
     */
    private static final Set<String> STANDARD_PROPERTIES = Set.of(
            // quarkus-reactive-pg-client / quarkus-jdbc-postgresql; kept out of application.properties on purpose.
            "quarkus.datasource.password",
            // quarkus-redis-client in Sentinel mode (the prod overlay; standalone is the default elsewhere)
            "quarkus.redis.client-type", "quarkus.redis.master-name", "quarkus.redis.role",
            "quarkus.redis.auto-failover", "quarkus.redis.password",
            // quarkus-flyway: the schema owner's credentials for the migrations, the service connecting as another role
            "quarkus.flyway.username", "quarkus.flyway.password",
            // quarkus-reactive-pg-client: TLS to the database, verifying its certificate and name (the prod overlay)
            "quarkus.datasource.reactive.postgresql.ssl-mode", "quarkus.datasource.reactive.hostname-verification-algorithm",
            "quarkus.datasource.reactive.trust-certificate-pem", "quarkus.datasource.reactive.trust-certificate-pem.certs",
            // MicroProfile JWT: the key that verifies tokens, where to load it from, and its issuer
            "mp.jwt.verify.publickey", "mp.jwt.verify.publickey.location", "mp.jwt.verify.issuer",
            // quarkus-opentelemetry reads the SDK's own name for quarkus.otel.resource.attributes as its fallback
            "otel.resource.attributes");

    /**
     * Variables that are not configuration properties at all: the image's ENTRYPOINT reads JAVA_OPTS (Dockerfile),
     * Kubernetes expands the others into OTEL_RESOURCE_ATTRIBUTES.
     */
    private static final Set<String> NOT_CONFIG_PROPERTIES = Set.of("JAVA_OPTS", "POD_NAME", "POD_NAMESPACE",
            "DEPLOYMENT_ENVIRONMENT");

    /** The resource attributes every span carries, each with where its value comes from. */
    private static final Map<String, String> TRACE_RESOURCE = Map.of("deployment.environment",
            "$(DEPLOYMENT_ENVIRONMENT)", "k8s.namespace.name", "$(POD_NAMESPACE)", "k8s.pod.name", "$(POD_NAME)");

    /** The collector's OTLP ports (gRPC, HTTP) the pods must be let out to. */
    private static final Set<Integer> OTLP_PORTS = Set.of(4317, 4318);

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    @Test
    void shouldParseEveryManifestAsKubernetesObjects() throws IOException {
        List<Path> files = manifestFiles();
        assertTrue(files.contains(BASE_DEPLOYMENT), "no manifests found under " + K8S.toAbsolutePath());
        for (Path file : files) {
            List<HasMetadata> objects = parse(file);
            assertFalse(objects.isEmpty(), file + " holds no Kubernetes object");
            for (HasMetadata object : objects) {
                String where = file + " " + object.getKind() + "/" + name(object);
                assertNotNull(object.getApiVersion(), where + " has no apiVersion");
                assertNotNull(object.getMetadata(), where + " has no metadata");
                assertNotNull(object.getMetadata().getName(), where + " has no name");
                if (object instanceof GenericKubernetesResource) {
                    // A typo in apiVersion or kind of a built-in type would land here as well.
                    assertTrue(CUSTOM_RESOURCES.contains(object.getApiVersion() + " " + object.getKind()),
                            where + ": " + object.getApiVersion() + " " + object.getKind()
                                    + " is no Kubernetes type known to fabric8 and no listed custom resource");
                } else {
                    List<String> unknown = new ArrayList<>();
                    unknownFields(object, object.getKind(), unknown);
                    assertTrue(unknown.isEmpty(), where + " has fields its schema does not know: " + unknown);
                }
            }
        }
    }

    @Test
    void shouldProbeThePathsAndPortTheAppServes() throws IOException {
        checkPortsAndProbes(single(parse(BASE_DEPLOYMENT), Deployment.class), "base");

        List<HasMetadata> base = parseAll(K8S.resolve("base"));
        Service service = single(base, Service.class);
        assertEquals("http", service.getSpec().getPorts().get(0).getTargetPort().getStrVal(),
                "the Service must target the container port by its name");
        NetworkPolicy policy = single(base, NetworkPolicy.class);
        for (var rule : policy.getSpec().getIngress()) {
            String from = rule.getFrom().get(0).getNamespaceSelector().getMatchLabels()
                    .get("kubernetes.io/metadata.name");
            // clients through the gateway reach the public port only; Prometheus the management port only
            int expected = "monitoring".equals(from) ? managementPort() : httpPort();
            for (NetworkPolicyPort port : rule.getPorts()) {
                assertEquals(expected, port.getPort().getIntVal(), "NetworkPolicy ingress port from " + from);
            }
        }
        for (HasMetadata object : allObjects()) {
            if (object instanceof ConfigMap map && map.getData() != null
                    && map.getData().containsKey("QUARKUS_HTTP_PORT")) {
                assertEquals(String.valueOf(httpPort()), map.getData().get("QUARKUS_HTTP_PORT"),
                        "ConfigMap " + name(map) + " moves the HTTP port away from the container port");
            }
        }
    }

    @Test
    void shouldSetOnlyEnvironmentVariablesTheAppReads() throws IOException {
        checkEnvironment(allObjects(), "k8s/");
    }

    @Test
    void shouldNameTheEnvironmentNamespaceAndPodOfEverySpanAndLetSpansOut() throws IOException {
        checkTraceResource(parseAll(K8S.resolve("base")), "base");
    }

    @Test
    void shouldLetGracefulShutdownFinishBeforeTheKill() throws IOException {
        checkGracefulShutdown(single(parse(BASE_DEPLOYMENT), Deployment.class), "base");
    }

    @Test
    void shouldRunHardenedWithThreeReplicasAndNoDowntimeOnRollout() throws IOException {
        Deployment deployment = single(parse(BASE_DEPLOYMENT), Deployment.class);
        checkHardened(deployment, "base");
        checkAvailability(deployment, "base");

        List<HasMetadata> base = parseAll(K8S.resolve("base"));
        PodDisruptionBudget budget = single(base, PodDisruptionBudget.class);
        assertEquals(2, budget.getSpec().getMinAvailable().getIntVal(), "PDB minAvailable");
        HorizontalPodAutoscaler autoscaler = single(base, HorizontalPodAutoscaler.class);
        assertEquals(name(deployment), autoscaler.getSpec().getScaleTargetRef().getName(), "HPA target");
        assertEquals(3, autoscaler.getSpec().getMinReplicas(), "HPA minReplicas");
        assertEquals("cpu", autoscaler.getSpec().getMetrics().get(0).getResource().getName(), "HPA metric");
    }

    @Test
    void shouldGiveEveryPodTheMemoryTheBenchmarkMeasuredWithItsMargin() throws IOException {
        checkMemory(single(parse(BASE_DEPLOYMENT), Deployment.class), "base");
        checkMemory(single(parse(K8S.resolve("overlays/prod/deployment.yaml")), Deployment.class), "prod overlay");
    }

    @Test
    void shouldKeepCredentialsOutOfConfigMapsAndPlaceholdersInTheSecretTemplate() throws IOException {
        Pattern credential = Pattern.compile(".*(^|_)(PASSWORD|SECRETS?|CREDENTIALS?|API_KEY|PRIVATE_KEY)(_|$).*");
        for (HasMetadata object : allObjects()) {
            if (object instanceof ConfigMap map && map.getData() != null) {
                for (String key : map.getData().keySet()) {
                    assertFalse(credential.matcher(key).matches(),
                            "ConfigMap " + name(map) + " holds " + key + ": credentials belong in a Secret");
                }
            }
        }
        Secret template = single(parse(SECRET_TEMPLATE), Secret.class);
        assertFalse(template.getStringData().isEmpty(), "the Secret template lists no keys");
        template.getStringData().forEach((key, value) -> assertEquals(PLACEHOLDER, value,
                "the Secret template must hold placeholders only, not " + key + "'s value"));
    }

    @Test
    void shouldRenderEveryOverlayWithKustomize() throws Exception {
        Optional<Path> kubectl = onPath("kubectl");
        if (kubectl.isEmpty()) {
            System.out.println("kubectl is not on PATH: the overlays were not rendered (everything else was checked)");
            return;
        }
        for (String overlay : OVERLAYS) {
            String where = "overlay " + overlay;
            String rendered = kustomize(kubectl.get(), K8S.resolve("overlays").resolve(overlay));
            List<HasMetadata> objects = unmarshal(rendered);
            for (HasMetadata object : objects) {
                String what = where + " " + object.getApiVersion() + " " + object.getKind() + "/" + name(object);
                if (object instanceof GenericKubernetesResource) {
                    assertTrue(CUSTOM_RESOURCES.contains(object.getApiVersion() + " " + object.getKind()),
                            what + " is no type with a schema fabric8 knows, and no listed custom resource");
                } else {
                    List<String> unknown = new ArrayList<>();
                    unknownFields(object, object.getKind(), unknown);
                    assertTrue(unknown.isEmpty(), what + " has fields its schema does not know: " + unknown);
                }
            }

            Deployment deployment = single(objects, Deployment.class);
            checkPortsAndProbes(deployment, where);
            checkGracefulShutdown(deployment, where);
            checkHardened(deployment, where);
            checkAvailability(deployment, where);
            checkEnvironment(objects, where);
            checkTraceResource(objects, where);
            for (HasMetadata object : objects) {
                if (object instanceof ConfigMap || object instanceof Secret) {
                    assertFalse(SERIALIZATION.asYaml(object).contains(PLACEHOLDER),
                            where + " leaves a " + PLACEHOLDER + " in " + object.getKind() + " " + name(object));
                }
            }
        }
    }

    // --- checks shared by the files and the rendered overlays ---

    private static void checkPortsAndProbes(Deployment deployment, String where) throws IOException {
        Container app = appContainer(deployment);
        ContainerPort http = app.getPorts().stream().filter(port -> "http".equals(port.getName())).findFirst()
                .orElseThrow(() -> new AssertionError(where + ": no container port named http"));
        assertEquals(httpPort(), http.getContainerPort(), where + ": container port vs quarkus.http.port");
        ContainerPort management = app.getPorts().stream().filter(port -> "management".equals(port.getName()))
                .findFirst().orElseThrow(() -> new AssertionError(where + ": no container port named management"));
        assertEquals(managementPort(), management.getContainerPort(),
                where + ": container port vs quarkus.management.port");

        // health and metrics are served on the management interface only (quarkus.management.enabled)
        checkProbe(app.getReadinessProbe(), "/q/health/ready", where + " readinessProbe");
        checkProbe(app.getLivenessProbe(), "/q/health/live", where + " livenessProbe");
        checkProbe(app.getStartupProbe(), "/q/health/live", where + " startupProbe");

        Map<String, String> annotations = deployment.getSpec().getTemplate().getMetadata().getAnnotations();
        assertEquals("true", annotations.get("prometheus.io/scrape"), where + ": prometheus.io/scrape");
        assertEquals(String.valueOf(managementPort()), annotations.get("prometheus.io/port"),
                where + ": prometheus port");
        assertEquals("/q/metrics", annotations.get("prometheus.io/path"), where + ": prometheus path");
    }

    private static void checkProbe(Probe probe, String path, String where) {
        assertNotNull(probe, where + " is missing");
        assertNotNull(probe.getHttpGet(), where + " must be an HTTP GET");
        assertEquals(path, probe.getHttpGet().getPath(), where + " path");
        assertEquals("management", probe.getHttpGet().getPort().getStrVal(), where + " port (by name)");
    }

    private static void checkGracefulShutdown(Deployment deployment, String where) throws IOException {
        Duration shutdown = duration(applicationProperties().getProperty("quarkus.shutdown.timeout"));
        List<String> preStop = appContainer(deployment).getLifecycle().getPreStop().getExec().getCommand();
        assertEquals("sleep", preStop.get(0), where + ": preStop should only wait for endpoint removal");
        Duration sleep = Duration.ofSeconds(Long.parseLong(preStop.get(1)));
        long grace = deployment.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds();
        assertTrue(grace > shutdown.plus(sleep).toSeconds(), where + ": terminationGracePeriodSeconds " + grace
                + " must exceed preStop " + sleep.toSeconds() + "s + quarkus.shutdown.timeout " + shutdown);
    }

    private static void checkHardened(Deployment deployment, String where) {
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();
        PodSecurityContext podContext = pod.getSecurityContext();
        SecurityContext context = appContainer(deployment).getSecurityContext();
        assertNotNull(context, where + ": container securityContext");
        assertEquals(Boolean.TRUE, Optional.ofNullable(context.getRunAsNonRoot())
                .orElse(podContext == null ? null : podContext.getRunAsNonRoot()), where + ": runAsNonRoot");
        assertEquals(Boolean.TRUE, context.getReadOnlyRootFilesystem(), where + ": readOnlyRootFilesystem");
        assertEquals(Boolean.FALSE, context.getAllowPrivilegeEscalation(), where + ": allowPrivilegeEscalation");
        assertNotNull(context.getCapabilities(), where + ": capabilities");
        assertEquals(List.of("ALL"), context.getCapabilities().getDrop(), where + ": capabilities drop");
        String seccomp = context.getSeccompProfile() != null ? context.getSeccompProfile().getType()
                : podContext != null && podContext.getSeccompProfile() != null
                        ? podContext.getSeccompProfile().getType() : null;
        assertEquals("RuntimeDefault", seccomp, where + ": seccompProfile");

        VolumeMount tmp = appContainer(deployment).getVolumeMounts().stream()
                .filter(mount -> "/tmp".equals(mount.getMountPath())).findFirst()
                .orElseThrow(() -> new AssertionError(where + ": /tmp must be writable (a volume)"));
        Volume volume = pod.getVolumes().stream().filter(v -> v.getName().equals(tmp.getName())).findFirst()
                .orElseThrow(() -> new AssertionError(where + ": no volume " + tmp.getName()));
        assertNotNull(volume.getEmptyDir(), where + ": /tmp should be an emptyDir");
    }

    /**
     * The container's heap is fixed (the Dockerfile's -Xmx); the benchmark measured the whole process at about twice
     * that under full load (293-364 MB RSS at 160 MB, docs/benchmarks.md), so the pod's limit is 3x the heap: a
     * margin of at least 40% over the highest measurement. Request = limit, so the scheduler reserves it all.
     */
    private static void checkMemory(Deployment deployment, String where) throws IOException {
        Container app = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
        Quantity request = app.getResources().getRequests().get("memory");
        Quantity limit = app.getResources().getLimits().get("memory");
        assertEquals(limit, request, where + ": memory request and limit");
        Matcher heap = Pattern.compile("-Xmx(\\d+)m").matcher(Files.readString(Path.of("Dockerfile")));
        assertTrue(heap.find(), "the Dockerfile fixes the heap with -Xmx<n>m");
        long heapBytes = Long.parseLong(heap.group(1)) << 20;
        long limitBytes = Quantity.getAmountInBytes(limit).longValueExact();
        assertTrue(limitBytes >= 3 * heapBytes && limitBytes <= 4 * heapBytes,
                where + ": memory limit " + limit + " is not 3-4x the fixed heap of " + heap.group(1) + " MB");
    }

    private static void checkAvailability(Deployment deployment, String where) {
        assertEquals(3, deployment.getSpec().getReplicas(), where + ": replicas");
        var strategy = deployment.getSpec().getStrategy();
        assertEquals("RollingUpdate", strategy.getType(), where + ": strategy");
        IntOrString maxUnavailable = strategy.getRollingUpdate().getMaxUnavailable();
        assertTrue(Integer.valueOf(0).equals(maxUnavailable.getIntVal()) || "0%".equals(maxUnavailable.getStrVal()),
                where + ": maxUnavailable must be 0, is " + maxUnavailable);
        assertTrue(deployment.getSpec().getTemplate().getSpec().getTopologySpreadConstraints().stream()
                .anyMatch(c -> "kubernetes.io/hostname".equals(c.getTopologyKey())), where + ": spread over nodes");
    }

    /**
     * Every variable set on a Deployment's containers, and every key of a ConfigMap or Secret that a Deployment
     * imports with envFrom, must name a property the app reads. The StatefulSets of the dev overlay are third-party
     * images with their own variables, and are not checked.
     */
    private static void checkEnvironment(List<HasMetadata> objects, String where) throws IOException {
        Set<String> imported = new TreeSet<>();
        Map<String, String> variables = new LinkedHashMap<>();
        for (HasMetadata object : objects) {
            if (object instanceof Deployment deployment) {
                for (Container container : deployment.getSpec().getTemplate().getSpec().getContainers()) {
                    for (EnvVar variable : Optional.ofNullable(container.getEnv()).orElse(List.of())) {
                        variables.put(variable.getName(), "Deployment " + name(deployment) + " env");
                    }
                    for (EnvFromSource source : Optional.ofNullable(container.getEnvFrom()).orElse(List.of())) {
                        assertTrue(source.getPrefix() == null, where + ": envFrom prefixes are not expected");
                        if (source.getConfigMapRef() != null) {
                            imported.add("ConfigMap " + source.getConfigMapRef().getName());
                        }
                        if (source.getSecretRef() != null) {
                            imported.add("Secret " + source.getSecretRef().getName());
                        }
                    }
                }
            }
        }
        assertFalse(imported.isEmpty(), where + ": the Deployment imports no ConfigMap or Secret");
        for (HasMetadata object : objects) {
            String ref = object.getKind() + " " + name(object);
            if (!imported.contains(ref)) {
                continue;
            }
            if (object instanceof ConfigMap map) {
                keys(map.getData()).forEach(key -> variables.put(key, ref));
            } else if (object instanceof Secret secret) {
                keys(secret.getStringData()).forEach(key -> variables.put(key, ref));
                keys(secret.getData()).forEach(key -> variables.put(key, ref));
            }
        }

        Set<String> known = knownEnvironmentNames();
        List<Pattern> mapped = configMappingPatterns();
        List<String> unknown = variables.entrySet().stream()
                .filter(variable -> !NOT_CONFIG_PROPERTIES.contains(variable.getKey()))
                .filter(variable -> !known.contains(variable.getKey()))
                .filter(variable -> mapped.stream().noneMatch(p -> p.matcher(variable.getKey()).matches()))
                .map(variable -> variable.getKey() + " (" + variable.getValue() + ")")
                .toList();
        assertTrue(unknown.isEmpty(), where + ": variables that match no property of the app: " + unknown);
    }

    /**
     * OTEL_RESOURCE_ATTRIBUTES names the environment (from the imported ConfigMap), the namespace and the pod (from
     * the downward API), each variable it expands defined before it, and the NetworkPolicy lets spans out to OTLP.
     */
    private static void checkTraceResource(List<HasMetadata> objects, String where) {
        Deployment deployment = single(objects, Deployment.class);
        Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
        Set<String> defined = new TreeSet<>();
        for (EnvFromSource source : Optional.ofNullable(container.getEnvFrom()).orElse(List.of())) {
            if (source.getConfigMapRef() != null) {
                objects.stream().filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast)
                        .filter(map -> name(map).equals(source.getConfigMapRef().getName()))
                        .forEach(map -> defined.addAll(keys(map.getData())));
            }
        }
        Map<String, String> fields = new LinkedHashMap<>();
        String attributes = null;
        for (EnvVar variable : Optional.ofNullable(container.getEnv()).orElse(List.of())) {
            if ("OTEL_RESOURCE_ATTRIBUTES".equals(variable.getName())) {
                attributes = variable.getValue();
                Matcher reference = Pattern.compile("\\$\\(([A-Z_]+)\\)").matcher(attributes);
                while (reference.find()) {
                    assertTrue(defined.contains(reference.group(1)), where + ": OTEL_RESOURCE_ATTRIBUTES expands "
                            + reference.group(1) + ", which nothing defines before it (Kubernetes would pass it on"
                            + " as written)");
                }
            }
            if (variable.getValueFrom() != null && variable.getValueFrom().getFieldRef() != null) {
                fields.put(variable.getName(), variable.getValueFrom().getFieldRef().getFieldPath());
            }
            defined.add(variable.getName());
        }
        assertNotNull(attributes, where + ": the Deployment sets no OTEL_RESOURCE_ATTRIBUTES");
        Map<String, String> parsed = Stream.of(attributes.split(",")).map(pair -> pair.split("=", 2))
                .collect(Collectors.toMap(pair -> pair[0], pair -> pair[1]));
        assertEquals(TRACE_RESOURCE, parsed, where + ": OTEL_RESOURCE_ATTRIBUTES");
        assertEquals(Map.of("POD_NAME", "metadata.name", "POD_NAMESPACE", "metadata.namespace"), fields,
                where + ": the downward API's fields");

        NetworkPolicy policy = single(objects, NetworkPolicy.class);
        Set<Integer> egress = policy.getSpec().getEgress().stream()
                .flatMap(rule -> Optional.ofNullable(rule.getPorts()).orElse(List.of()).stream())
                .map(port -> port.getPort().getIntVal()).collect(Collectors.toSet());
        assertTrue(egress.containsAll(OTLP_PORTS), where + ": the NetworkPolicy lets no spans out to the"
                + " collector's OTLP ports " + OTLP_PORTS + ", only to " + egress);
    }

    // --- what the app reads ---

    private static Properties applicationProperties() throws IOException {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(APPLICATION_PROPERTIES)) {
            properties.load(in);
        }
        return properties;
    }

    private static int httpPort() throws IOException {
        return Integer.parseInt(applicationProperties().getProperty("quarkus.http.port"));
    }

    private static int managementPort() throws IOException {
        assertEquals("true", applicationProperties().getProperty("quarkus.management.enabled"),
                "health and metrics are expected on the management interface");
        return Integer.parseInt(applicationProperties().getProperty("quarkus.management.port"));
    }

    /** Environment names of application.properties keys (any profile) and of the listed standard properties. */
    private static Set<String> knownEnvironmentNames() throws IOException {
        Set<String> names = new TreeSet<>();
        for (String key : applicationProperties().stringPropertyNames()) {
            names.add(environmentName(key.replaceFirst("^%[^.]+\\.", "")));
        }
        STANDARD_PROPERTIES.forEach(property -> names.add(environmentName(property)));
        return names;
    }

    /** SmallRye Config's rule: every character other than a letter or digit becomes '_', then upper case. */
    private static String environmentName(String property) {
        return property.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }

    /**
     * One pattern per property of every {@link ConfigMapping} interface in the application's classes, with map
     * keys as wildcards: {@code payments.providers.*.secrets} becomes {@code PAYMENTS_PROVIDERS_[A-Z0-9_]+_SECRETS}.
     * A misspelt leaf (PAYMENTS_PROVIDERS_MOCKPAY_SECRET) matches none.
     */
    private static List<Pattern> configMappingPatterns() throws IOException {
        List<Pattern> patterns = new ArrayList<>();
        for (Class<?> mapping : configMappings()) {
            ConfigMapping annotation = mapping.getAnnotation(ConfigMapping.class);
            List<List<String>> paths = new ArrayList<>();
            collectPaths(mapping, new ArrayList<>(List.of(annotation.prefix())), annotation.namingStrategy(), paths);
            for (List<String> path : paths) {
                patterns.add(Pattern.compile(path.stream()
                        .map(segment -> segment.equals("*") ? "[A-Z0-9_]+" : Pattern.quote(environmentName(segment)))
                        .collect(Collectors.joining("_"))));
            }
        }
        return patterns;
    }

    private static List<Class<?>> configMappings() throws IOException {
        Path classes;
        try {
            classes = Path.of(IdempotencyConfig.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<Class<?>> mappings = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString().replace(File.separatorChar, '.')
                        .replaceFirst("\\.class$", "");
                try {
                    Class<?> type = Class.forName(name, false, KubernetesManifestsTest.class.getClassLoader());
                    if (type.isAnnotationPresent(ConfigMapping.class)) {
                        mappings.add(type);
                    }
                } catch (ClassNotFoundException | LinkageError e) {
                    // Generated or optional classes that cannot load here are no configuration mappings.
                }
            }
        }
        assertTrue(mappings.contains(IdempotencyConfig.class), "found no @ConfigMapping under " + classes);
        return mappings;
    }

    private static void collectPaths(Class<?> group, List<String> prefix, ConfigMapping.NamingStrategy naming,
            List<List<String>> paths) {
        for (Method method : group.getMethods()) {
            if (method.getParameterCount() != 0 || method.isDefault()
                    || Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            List<String> path = new ArrayList<>(prefix);
            if (!method.isAnnotationPresent(WithParentName.class)) {
                path.add(method.isAnnotationPresent(WithName.class) ? method.getAnnotation(WithName.class).value()
                        : naming.apply(method.getName()));
            }
            collectType(method.getGenericReturnType(), path, naming, paths);
        }
    }

    private static void collectType(Type type, List<String> path, ConfigMapping.NamingStrategy naming,
            List<List<String>> paths) {
        if (type instanceof ParameterizedType parameterized) {
            Class<?> raw = (Class<?>) parameterized.getRawType();
            if (raw == Optional.class) {
                collectType(parameterized.getActualTypeArguments()[0], path, naming, paths);
                return;
            }
            if (Map.class.isAssignableFrom(raw)) {
                List<String> keyed = new ArrayList<>(path);
                keyed.add("*");
                collectType(parameterized.getActualTypeArguments()[1], keyed, naming, paths);
                return;
            }
            paths.add(path);
            return;
        }
        if (type instanceof Class<?> raw && raw.isInterface() && !raw.getName().startsWith("java.")) {
            collectPaths(raw, path, naming, paths);
            return;
        }
        paths.add(path);
    }

    // --- reading manifests ---

    private static List<Path> manifestFiles() throws IOException {
        try (Stream<Path> files = Files.walk(K8S)) {
            return files.filter(Files::isRegularFile)
                    .filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml"))
                    // Kustomize's own configuration, not Kubernetes objects; kubectl kustomize checks it.
                    .filter(f -> !f.getFileName().toString().startsWith("kustomization."))
                    .filter(f -> !PROMETHEUS_FILES.contains(f.getFileName().toString()))
                    .sorted()
                    .toList();
        }
    }

    private static List<HasMetadata> allObjects() throws IOException {
        List<HasMetadata> objects = new ArrayList<>();
        for (Path file : manifestFiles()) {
            objects.addAll(parse(file));
        }
        return objects;
    }

    private static List<HasMetadata> parseAll(Path directory) throws IOException {
        List<HasMetadata> objects = new ArrayList<>();
        for (Path file : manifestFiles()) {
            if (file.getParent().equals(directory)) {
                objects.addAll(parse(file));
            }
        }
        return objects;
    }

    static List<HasMetadata> parse(Path file) throws IOException {
        try {
            return unmarshal(Files.readString(file, StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            throw new AssertionError(file + " does not parse as Kubernetes objects: " + e.getMessage(), e);
        }
    }

    /** One or more YAML documents; fabric8 answers a list for several and the object itself for one. */
    static List<HasMetadata> unmarshal(String yaml) {
        Object parsed = SERIALIZATION.unmarshal(yaml);
        List<?> documents = parsed instanceof List<?> list ? list : parsed == null ? List.of() : List.of(parsed);
        List<HasMetadata> objects = new ArrayList<>();
        for (Object document : documents) {
            if (document == null) {
                continue;
            }
            if (!(document instanceof HasMetadata object)) {
                throw new AssertionError("not a Kubernetes object: " + document.getClass().getName());
            }
            objects.add(object);
        }
        return objects;
    }

    /**
     * fabric8 keeps fields that its schema does not know in additionalProperties instead of failing, so a typo
     * such as {@code readinesProbe} would parse silently; this walk finds them.
     */
    private static void unknownFields(Object node, String path, List<String> found) {
        if (node instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                unknownFields(item, path + "[" + i++ + "]", found);
            }
            return;
        }
        if (node instanceof Map<?, ?> map) {
            map.forEach((key, value) -> unknownFields(value, path + "." + key, found));
            return;
        }
        if (node == null || !(node.getClass().getName().startsWith("io.fabric8.kubernetes.api.model.")
                || node.getClass().getName().startsWith("io.fabric8.openshift.api.model."))
                || node instanceof GenericKubernetesResource || node instanceof IntOrString) {
            return;
        }
        for (Method getter : node.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || !getter.getName().startsWith("get")
                    || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            Object value;
            try {
                value = getter.invoke(node);
            } catch (IllegalAccessException | InvocationTargetException e) {
                continue;
            }
            if (getter.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    found.add(path + " " + extra.keySet());
                }
            } else {
                unknownFields(value, path + "." + getter.getName().substring(3), found);
            }
        }
    }

    // --- small helpers ---

    private static <T extends HasMetadata> T single(List<HasMetadata> objects, Class<T> type) {
        List<T> matching = objects.stream().filter(type::isInstance).map(type::cast).toList();
        assertEquals(1, matching.size(), "expected exactly one " + type.getSimpleName() + ", found "
                + matching.stream().map(KubernetesManifestsTest::name).toList());
        return matching.get(0);
    }

    private static Container appContainer(Deployment deployment) {
        return deployment.getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(container -> "orderflow".equals(container.getName())).findFirst()
                .orElseThrow(() -> new AssertionError("no container named orderflow in " + name(deployment)));
    }

    private static String name(HasMetadata object) {
        return object.getMetadata() == null ? "?" : object.getMetadata().getName();
    }

    private static Set<String> keys(Map<String, String> map) {
        return map == null ? Set.of() : map.keySet();
    }

    /** Quarkus durations as written in application.properties: a number of seconds, or e.g. 20s, 1m, 500ms. */
    private static Duration duration(String value) {
        assertNotNull(value, "quarkus.shutdown.timeout is not set in application.properties");
        if (value.matches("\\d+")) {
            return Duration.ofSeconds(Long.parseLong(value));
        }
        if (value.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
        }
        return Duration.parse("PT" + value.toUpperCase(Locale.ROOT));
    }

    static Optional<Path> onPath(String command) {
        return Stream.of(Optional.ofNullable(System.getenv("PATH")).orElse("").split(File.pathSeparator))
                .filter(dir -> !dir.isBlank())
                .map(dir -> Path.of(dir, command))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** Some files of an overlay, parsed as they stand, and, with kubectl, the whole overlay as rendered. */
    static List<List<HasMetadata>> views(Path overlay, List<String> files) throws Exception {
        List<HasMetadata> parsed = new ArrayList<>();
        for (String file : files) {
            parsed.addAll(parse(overlay.resolve(file)));
        }
        List<List<HasMetadata>> views = new ArrayList<>(List.of(parsed));
        Optional<Path> kubectl = onPath("kubectl");
        if (kubectl.isPresent()) {
            views.add(unmarshal(kustomize(kubectl.get(), overlay)));
        } else {
            System.out.println("kubectl is not on PATH: " + overlay + " was checked as files, not rendered");
        }
        return views;
    }

    static String kustomize(Path kubectl, Path overlay) throws IOException, InterruptedException {
        Path output = Files.createTempFile("kustomize", ".yaml");
        Path errors = Files.createTempFile("kustomize", ".err");
        try {
            Process process = new ProcessBuilder(kubectl.toString(), "kustomize", overlay.toString())
                    .redirectOutput(output.toFile())
                    .redirectError(errors.toFile())
                    .start();
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                fail("kubectl kustomize " + overlay + " did not finish within 2 minutes");
            }
            String rendered = Files.readString(output);
            assertEquals(0, process.exitValue(),
                    "kubectl kustomize " + overlay + " failed: " + Files.readString(errors));
            assertFalse(rendered.isBlank(), "kubectl kustomize " + overlay + " rendered nothing");
            return rendered;
        } finally {
            Files.deleteIfExists(output);
            Files.deleteIfExists(errors);
        }
    }
}
