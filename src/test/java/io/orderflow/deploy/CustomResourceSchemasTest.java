package io.orderflow.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every custom resource the overlays render (and k8s/monitoring on its own) against its CRD's schema, vendored under
 * src/test/resources/k8s-schemas (its README names the releases). The API server prunes a field a structural schema
 * does not declare, silently: a misspelt {@code destinationPth} would apply without a word and leave the database
 * without backups. So the schemas are read as {@code kubeconform -strict} reads them, an undeclared field an error.
 */
class CustomResourceSchemasTest {

    private static final Path K8S = Path.of("k8s");
    /** The API groups Kubernetes serves itself ("" is the core group); an object of any other is a custom resource. */
    private static final Set<String> BUILT_IN_GROUPS = Set.of("", "apps", "autoscaling", "batch", "policy",
            "networking.k8s.io", "rbac.authorization.k8s.io", "storage.k8s.io", "scheduling.k8s.io",
            "coordination.k8s.io", "discovery.k8s.io", "node.k8s.io", "admissionregistration.k8s.io",
            "apiextensions.k8s.io", "apiregistration.k8s.io", "certificates.k8s.io", "events.k8s.io",
            "flowcontrol.apiserver.k8s.io", "resource.k8s.io");
    /**
     * ObjectMeta, which the API server reads for every kind whatever the CRD says ({@code type: object}): the fields
     * a manifest sets checked, the ones the server fills in allowed, any other refused.
     */
    private static final String OBJECT_META = """
            {"type": "object", "additionalProperties": false, "properties": {
              "name": {"type": "string"}, "generateName": {"type": "string"}, "namespace": {"type": "string"},
              "labels": {"type": "object", "additionalProperties": {"type": "string"}},
              "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
              "finalizers": {"type": "array", "items": {"type": "string"}},
              "ownerReferences": {}, "uid": {}, "resourceVersion": {}, "generation": {}, "creationTimestamp": {},
              "deletionTimestamp": {}, "deletionGracePeriodSeconds": {}, "managedFields": {}, "selfLink": {}}}""";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** Draft 4: the JSON Schema that OpenAPI 3.0, and so a CRD's openAPIV3Schema, is written in. */
    private static final JsonSchemaFactory SCHEMAS = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4);
    private static final Map<String, Optional<JsonSchema>> LOADED = new HashMap<>();

    @Test
    void shouldMatchEveryCustomResourceOfEveryOverlayToItsCrdSchema() throws Exception {
        Map<String, Path> renderings = new LinkedHashMap<>();
        KubernetesManifestsTest.OVERLAYS.forEach(overlay -> renderings.put("overlay " + overlay,
                K8S.resolve("overlays").resolve(overlay)));
        renderings.put("k8s/monitoring", K8S.resolve("monitoring"));
        List<String> refused = new ArrayList<>();
        int validated = 0;
        for (Map.Entry<String, Path> rendering : renderings.entrySet()) {
            for (JsonNode object : rendered(rendering.getValue())) {
                String group = object.path("apiVersion").asText().replaceFirst("/?[^/]*$", "");
                if (!BUILT_IN_GROUPS.contains(group)) {
                    refused.addAll(errors(rendering.getKey(), object));
                    validated++;
                }
            }
        }
        assertTrue(validated > 0, "no custom resource found in " + renderings.values());
        assertTrue(refused.isEmpty(), () -> "custom resources their CRD's schema refuses, or without one (the API"
                + " server would drop an unknown field silently):\n" + String.join("\n", refused));
    }

    /** The strict reading itself: without it the test above would pass whatever the manifests say. */
    @Test
    void shouldRefuseAMisspeltFieldAndAValueOfTheWrongType() throws Exception {
        List<JsonNode> prod = rendered(K8S.resolve("overlays/prod"));
        JsonNode monitor = one(prod, "ServiceMonitor").deepCopy();
        ((ObjectNode) monitor.at("/spec/endpoints/0")).put("intervall", "30s");
        JsonNode cluster = one(prod, "Cluster").deepCopy();
        ((ObjectNode) cluster.at("/spec/backup/barmanObjectStore")).put("destinationPth", "s3://orderflow-backups");
        ((ObjectNode) cluster.at("/spec")).put("instances", "three");
        ((ObjectNode) cluster.at("/metadata")).putObject("labls");

        String errors = String.join("\n", errors("overlay prod", monitor)) + "\n"
                + String.join("\n", errors("overlay prod", cluster));
        for (String expected : List.of("ServiceMonitor/orderflow: $.spec.endpoints[0]: property 'intervall'",
                "Cluster/orderflow-db: $.spec.backup.barmanObjectStore: property 'destinationPth'",
                "Cluster/orderflow-db: $.spec.instances: string found, integer expected",
                "Cluster/orderflow-db: $.metadata: property 'labls'")) {
            assertTrue(errors.contains(expected), "expected an error with \"" + expected + "\" in\n" + errors);
        }
    }

    /** What the object's schema refuses, each line naming where, the object and the JSON path. */
    private static List<String> errors(String where, JsonNode object) {
        String apiVersion = object.path("apiVersion").asText();
        String kind = object.path("kind").asText();
        String what = where + ": " + apiVersion + " " + kind + "/" + object.at("/metadata/name").asText();
        Optional<JsonSchema> schema = LOADED.computeIfAbsent(apiVersion + " " + kind, key -> schema(apiVersion, kind));
        if (schema.isEmpty()) {
            return List.of(what + " is a custom resource without a schema under src/test/resources/k8s-schemas:"
                    + " extract its CRD's with k8s/schemas-update.sh");
        }
        return schema.get().validate(object).stream().map(error -> what + ": " + error.getMessage()).sorted()
                .toList();
    }

    /** k8s-schemas/{group}/{kind in lower case}_{version}.json, made strict; empty when there is none. */
    private static Optional<JsonSchema> schema(String apiVersion, String kind) {
        int slash = apiVersion.lastIndexOf('/');
        String resource = "/k8s-schemas/" + apiVersion.substring(0, slash) + "/" + kind.toLowerCase(Locale.ROOT)
                + "_" + apiVersion.substring(slash + 1) + ".json";
        try (InputStream in = CustomResourceSchemasTest.class.getResourceAsStream(resource)) {
            if (in == null) {
                return Optional.empty();
            }
            ObjectNode schema = (ObjectNode) YAML.readTree(in);
            ((ObjectNode) schema.get("properties")).set("metadata", YAML.readTree(OBJECT_META));
            makeStrict(schema, true);
            return Optional.of(SCHEMAS.getSchema(schema));
        } catch (IOException e) {
            throw new UncheckedIOException(resource, e);
        }
    }

    /**
     * A structural schema as {@code kubeconform -strict} reads it: an object schema with properties, and neither
     * additionalProperties nor x-kubernetes-preserve-unknown-fields, refuses any other field; int-or-string takes
     * both; nullable takes null; the Kubernetes extensions, which JSON Schema does not know, are dropped. Fields are
     * refused only along properties, items and additionalProperties, where the API server prunes: the branches of
     * anyOf, allOf, oneOf and not only add constraints to the same object.
     */
    private static void makeStrict(ObjectNode schema, boolean structural) {
        boolean preserveUnknown = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean();
        if (schema.path("x-kubernetes-int-or-string").asBoolean()) {
            schema.set("type", YAML.createArrayNode().add("integer").add("string"));
        } else if (schema.path("nullable").asBoolean() && schema.has("type")) {
            schema.set("type", YAML.createArrayNode().add(schema.get("type").asText()).add("null"));
        }
        if (structural && schema.has("properties") && !schema.has("additionalProperties") && !preserveUnknown) {
            schema.put("additionalProperties", false);
        }
        schema.properties().removeIf(field -> field.getKey().startsWith("x-kubernetes-")
                || field.getKey().equals("nullable"));
        schema.path("properties").forEach(property -> makeStrict((ObjectNode) property, structural));
        for (String child : List.of("items", "additionalProperties")) {
            if (schema.get(child) instanceof ObjectNode nested) {
                makeStrict(nested, structural);
            }
        }
        for (String branches : List.of("anyOf", "allOf", "oneOf")) {
            schema.path(branches).forEach(branch -> makeStrict((ObjectNode) branch, false));
        }
        if (schema.get("not") instanceof ObjectNode not) {
            makeStrict(not, false);
        }
    }

    /**
     * The directory as kubectl kustomize renders it. Without kubectl the test is skipped, saying so, except in CI:
     * there a missing kubectl would let every custom resource go unchecked.
     */
    private static List<JsonNode> rendered(Path directory) throws Exception {
        Optional<Path> kubectl = KubernetesManifestsTest.onPath("kubectl");
        assertFalse(kubectl.isEmpty() && "true".equals(System.getenv("CI")),
                "kubectl is not on PATH, and CI must render and validate the overlays");
        assumeTrue(kubectl.isPresent(), "kubectl is not on PATH: the overlays cannot be rendered");
        try (var documents = YAML.readerFor(JsonNode.class)
                .<JsonNode>readValues(KubernetesManifestsTest.kustomize(kubectl.get(), directory))) {
            return documents.readAll();
        }
    }

    private static JsonNode one(List<JsonNode> objects, String kind) {
        List<JsonNode> found = objects.stream().filter(object -> object.path("kind").asText().equals(kind)).toList();
        assertEquals(1, found.size(), "one " + kind);
        return found.get(0);
    }
}
