package io.orderflow.common;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The top-level openapi.yaml is the contract: the service must serve exactly its paths, methods and statuses. */
@QuarkusTest
class OpenApiContractTest {

    private static Map<String, Set<String>> operations(JsonNode doc) {
        Map<String, Set<String>> ops = new TreeMap<>();
        doc.get("paths").fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(op -> {
            Set<String> codes = new TreeSet<>();
            op.getValue().get("responses").fieldNames().forEachRemaining(codes::add);
            ops.put(op.getKey().toUpperCase() + " " + path.getKey(), codes);
        }));
        return ops;
    }

    @Test
    void shouldServeTheSamePathsMethodsAndStatusCodesAsTheContract() throws IOException {
        JsonNode contract = new YAMLMapper().readTree(Path.of("openapi.yaml").toFile());
        JsonNode served = new ObjectMapper().readTree(
                given().queryParam("format", "json").get("/q/openapi").then().statusCode(200).extract().asString());
        assertEquals(operations(contract), operations(served));
    }

    @Test
    void shouldListEveryProblemTypeTheServiceAnswersWithInTheContract() throws IOException {
        JsonNode contract = new YAMLMapper().readTree(Path.of("openapi.yaml").toFile());
        Set<String> documented = new TreeSet<>();
        contract.at("/components/schemas/Problem/properties/type/enum").forEach(t -> documented.add(t.asText()));
        Set<String> served = new TreeSet<>();
        for (var type : io.orderflow.common.problem.ProblemType.values()) {
            served.add(type.uri().toString());
        }
        assertEquals(served, documented);
    }

    @Test
    void shouldServeSwaggerUi() {
        given().get("/q/swagger-ui/").then().statusCode(200);
    }
}
