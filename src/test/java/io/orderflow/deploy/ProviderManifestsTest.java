package io.orderflow.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.HTTPIngressPath;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The manifests against the real payment providers (issue: manifests that let real providers work): every provider
 * setting docs/payments.md lists without a default has a source in the prod overlay, every file the settings name is
 * a read-only Secret mount, egress admits HTTPS to the outside and nothing else new, the Ingress routes the callback
 * paths to the Service, and the dev overlay knows mockpay only. The prod overlay is checked as files and, with
 * kubectl, as rendered.
 */
class ProviderManifestsTest {

    private static final Path PROD = Path.of("k8s/overlays/prod");
    private static final Path DEV = Path.of("k8s/overlays/dev");
    private static final Path PAYMENTS_DOC = Path.of("docs/payments.md");
    private static final List<String> PROVIDERS = List.of("stripe", "wechatpay");
    /** The egress ports the service needs: PostgreSQL, Redis, the Sentinels, DNS, HTTPS. */
    private static final Set<Integer> EGRESS_PORTS = Set.of(5432, 6379, 26379, 53, 443, 4317, 4318);

    /** OTLP (gRPC, HTTP): to the trace collector's namespace only, not to any address. */
    private static final Set<Integer> OTLP_PORTS = Set.of(4317, 4318);
    private static final List<String> PRIVATE_RANGES = List.of("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16");
    /** A settings row of docs/payments.md: name, meaning, default. */
    private static final Pattern SETTING_ROW = Pattern.compile(
            "(?m)^\\| `payments\\.providers\\.(\\w+)\\.([a-z0-9-]+)` \\| ([^|]*) \\| ([^|]*) \\|$");

    @Test
    void shouldGiveEveryProviderSettingWithoutADefaultASourceInTheProdOverlay() throws Exception {
        Map<String, String> templates = secretTemplateKeys();
        List<DocumentedSetting> required = documentedSettings().stream().filter(DocumentedSetting::required).toList();
        assertTrue(required.size() >= 10, "docs/payments.md lists the providers' settings: " + required);
        for (List<HasMetadata> view : prodViews()) {
            Set<String> sources = environmentSources(appContainer(view), templates);
            List<String> missing = required.stream().map(DocumentedSetting::environmentName)
                    .filter(name -> !sources.contains(name)).toList();
            assertTrue(missing.isEmpty(), "provider settings with no source in the prod overlay: " + missing);
        }
    }

    @Test
    void shouldMountEveryFileTheProviderSettingsNameReadOnlyFromASecret() throws Exception {
        Map<String, String> templates = secretTemplateKeys();
        List<DocumentedSetting> files = documentedSettings().stream().filter(DocumentedSetting::file).toList();
        assertFalse(files.isEmpty(), "docs/payments.md names file settings (\"path of\")");
        for (List<HasMetadata> view : prodViews()) {
            Deployment deployment = single(view, Deployment.class);
            Container app = appContainer(view);
            for (DocumentedSetting setting : files) {
                String path = templates.get(setting.environmentName());
                assertNotNull(path, setting + " is in no Secret template");
                assertTrue(path.startsWith("/"), setting + " names no absolute path: " + path);
                VolumeMount mount = Optional.ofNullable(app.getVolumeMounts()).orElse(List.of()).stream()
                        .filter(m -> path.startsWith(m.getMountPath() + "/")).findFirst()
                        .orElseThrow(() -> new AssertionError(path + " (" + setting + ") is on no volume mount"));
                assertEquals(Boolean.TRUE, mount.getReadOnly(), mount.getMountPath() + " must be read-only");
                Volume volume = deployment.getSpec().getTemplate().getSpec().getVolumes().stream()
                        .filter(v -> v.getName().equals(mount.getName())).findFirst().orElseThrow();
                assertNotNull(volume.getSecret(), mount.getMountPath() + " must be a Secret volume");
                String file = path.substring(mount.getMountPath().length() + 1);
                assertTrue(templates.containsKey(volume.getSecret().getSecretName() + "/" + file),
                        "the Secret template of " + volume.getSecret().getSecretName() + " lists no " + file);
            }
        }
    }

    @Test
    void shouldAdmitHttpsToAddressesOutsideTheClusterAndNoOtherNewPort() throws Exception {
        List<List<HasMetadata>> views = new ArrayList<>(prodViews());
        views.add(KubernetesManifestsTest.parse(Path.of("k8s/base/networkpolicy.yaml")));
        for (List<HasMetadata> view : views) {
            NetworkPolicy policy = single(view, NetworkPolicy.class);
            boolean https = false;
            for (NetworkPolicyEgressRule rule : policy.getSpec().getEgress()) {
                assertFalse(Optional.ofNullable(rule.getPorts()).orElse(List.of()).isEmpty(),
                        "an egress rule without ports admits every port: " + rule);
                for (NetworkPolicyPort port : rule.getPorts()) {
                    assertTrue(EGRESS_PORTS.contains(port.getPort().getIntVal()), "egress to port " + port);
                    if (OTLP_PORTS.contains(port.getPort().getIntVal())) {
                        assertTrue(rule.getTo() != null && !rule.getTo().isEmpty() && rule.getTo().stream()
                                .allMatch(peer -> peer.getNamespaceSelector() != null && peer.getIpBlock() == null),
                                "OTLP goes to the collector's namespace only: " + rule);
                    }
                    if (port.getPort().getIntVal() == 443) {
                        https = true;
                        NetworkPolicyPeer peer = rule.getTo().get(0);
                        assertEquals("0.0.0.0/0", peer.getIpBlock().getCidr(), "HTTPS goes to any outside address");
                        assertTrue(peer.getIpBlock().getExcept().containsAll(PRIVATE_RANGES),
                                "HTTPS excludes the cluster's private ranges: " + peer.getIpBlock().getExcept());
                    }
                }
            }
            assertTrue(https, "egress admits no HTTPS (443): providers, JWKS and webhooks are unreachable");
        }
    }

    @Test
    void shouldRouteTheCallbackPathsToTheServiceWithoutTheClientsRateLimit() throws Exception {
        for (List<HasMetadata> view : prodViews()) {
            List<Ingress> ingresses = view.stream().filter(Ingress.class::isInstance).map(Ingress.class::cast).toList();
            assertFalse(ingresses.isEmpty(), "the prod overlay has no Ingress");
            Map<String, Ingress> routes = new HashMap<>();
            for (Ingress ingress : ingresses) {
                Map<String, String> annotations = ingress.getMetadata().getAnnotations();
                assertTrue(annotations.containsKey("cert-manager.io/cluster-issuer"), "cert-manager issues TLS");
                assertFalse(ingress.getSpec().getTls().isEmpty(), "TLS on " + ingress.getMetadata().getName());
                for (var rule : ingress.getSpec().getRules()) {
                    for (HTTPIngressPath path : rule.getHttp().getPaths()) {
                        assertEquals("orderflow", path.getBackend().getService().getName(), "backend Service");
                        assertEquals("http", path.getBackend().getService().getPort().getName(), "backend port");
                        routes.put(path.getPath(), ingress);
                    }
                }
            }
            assertTrue(routes.containsKey("/") && routes.get("/").getMetadata().getAnnotations()
                    .containsKey("nginx.ingress.kubernetes.io/limit-rps"), "the API is rate limited per client");
            for (String provider : PROVIDERS) {
                Ingress callbacks = routes.get("/payments/" + provider + "/callbacks");
                assertNotNull(callbacks, "no route for " + provider + "'s callbacks");
                assertFalse(callbacks.getMetadata().getAnnotations().containsKey("nginx.ingress.kubernetes.io/limit-rps"),
                        provider + "'s deliveries must not be limited as one client");
            }
            Service service = view.stream().filter(Service.class::isInstance).map(Service.class::cast)
                    .filter(s -> "orderflow".equals(s.getMetadata().getName())).findFirst().orElse(null);
            if (service != null) {
                assertTrue(service.getSpec().getPorts().stream().anyMatch(p -> "http".equals(p.getName())),
                        "the Service has the port the Ingress names");
            }
        }
    }

    @Test
    void shouldRunTheDevOverlayWithMockpayOnly() throws Exception {
        Optional<Path> kubectl = KubernetesManifestsTest.onPath("kubectl");
        List<HasMetadata> dev = kubectl.isPresent()
                ? KubernetesManifestsTest.unmarshal(KubernetesManifestsTest.kustomize(kubectl.get(), DEV))
                : KubernetesManifestsTest.parse(DEV.resolve("secret.yaml"));
        Set<String> keys = new TreeSet<>();
        for (HasMetadata object : dev) {
            if (object instanceof Secret secret && secret.getStringData() != null) {
                keys.addAll(secret.getStringData().keySet());
            }
        }
        assertTrue(keys.contains("PAYMENTS_PROVIDERS_MOCKPAY_SECRETS"), "dev runs mockpay: " + keys);
        String rendered = String.join("\n", dev.stream().map(Object::toString).toList());
        for (String provider : PROVIDERS) {
            assertFalse(rendered.toUpperCase(Locale.ROOT).contains("PAYMENTS_PROVIDERS_" + provider.toUpperCase(Locale.ROOT)),
                    "the dev overlay configures " + provider);
        }
    }

    // --- what the docs list ---

    record DocumentedSetting(String provider, String name, String meaning, String defaultValue) {
        boolean required() {
            return defaultValue.strip().equals("—");
        }

        boolean file() {
            return meaning.startsWith("path of");
        }

        String environmentName() {
            return ("PAYMENTS_PROVIDERS_" + provider + "_" + name).replace('-', '_').toUpperCase(Locale.ROOT);
        }
    }

    private static List<DocumentedSetting> documentedSettings() throws IOException {
        List<DocumentedSetting> settings = new ArrayList<>();
        Matcher row = SETTING_ROW.matcher(Files.readString(PAYMENTS_DOC));
        while (row.find()) {
            if (PROVIDERS.contains(row.group(1))) {
                settings.add(new DocumentedSetting(row.group(1), row.group(2), row.group(3).strip(), row.group(4)));
            }
        }
        return settings;
    }

    // --- what the overlay provides ---

    /** Every key of the prod overlay's Secret templates, as "secret/key" and (for the env-form keys) as the key. */
    private static Map<String, String> secretTemplateKeys() throws IOException {
        Map<String, String> keys = new LinkedHashMap<>();
        for (HasMetadata object : KubernetesManifestsTest.parse(PROD.resolve("secrets.template.yaml"))) {
            Secret secret = (Secret) object;
            secret.getStringData().forEach((key, value) -> {
                keys.put(secret.getMetadata().getName() + "/" + key, value);
                keys.put(key, value);
            });
        }
        return keys;
    }

    /** Variables the container sets or imports from a Secret template (envFrom), by name. */
    private static Set<String> environmentSources(Container app, Map<String, String> templates) {
        Set<String> names = new TreeSet<>();
        Optional.ofNullable(app.getEnv()).orElse(List.of()).stream().map(EnvVar::getName).forEach(names::add);
        for (EnvFromSource source : Optional.ofNullable(app.getEnvFrom()).orElse(List.of())) {
            if (source.getSecretRef() != null) {
                String prefix = source.getSecretRef().getName() + "/";
                templates.keySet().stream().filter(k -> k.startsWith(prefix))
                        .map(k -> k.substring(prefix.length())).forEach(names::add);
            }
        }
        return names;
    }

    /** The prod overlay as files (the Deployment patch repeats envFrom in full) and, with kubectl, as rendered. */
    private static List<List<HasMetadata>> prodViews() throws Exception {
        return KubernetesManifestsTest.views(PROD, List.of("deployment.yaml", "networkpolicy.yaml", "ingress.yaml"));
    }

    private static Container appContainer(List<HasMetadata> objects) {
        return single(objects, Deployment.class).getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(c -> "orderflow".equals(c.getName())).findFirst().orElseThrow();
    }

    private static <T extends HasMetadata> T single(List<HasMetadata> objects, Class<T> type) {
        List<T> matching = objects.stream().filter(type::isInstance).map(type::cast).toList();
        assertEquals(1, matching.size(), "expected one " + type.getSimpleName());
        return matching.get(0);
    }
}
