package io.orderflow.common;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.ValidationReport;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.support.Contract;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The top-level openapi.yaml is the contract: the service serves exactly it, and the validator every HTTP test goes
 * through refuses what it does not document.
 */
@QuarkusTest
class OpenApiContractTest {

    private static final String ORDER_ID = "0190f1a2-7b3c-7d4e-8f60-123456789abc";
    private static final String PROBLEM = "{\"type\":\"https://orderflow.dev/problems/not-found\","
            + "\"title\":\"No such resource\",\"status\":404,\"detail\":\"No order\"}";

    private static JsonNode contract() throws IOException {
        return new YAMLMapper().readTree(Path.of("openapi.yaml").toFile());
    }

    @Test
    void shouldServeTheContractFileAsItsOpenApiDocumentModelForModel() throws IOException {
        JsonNode servedJson = new ObjectMapper().readTree(
                given().queryParam("format", "json").get("/q/openapi").then().statusCode(200).extract().asString());
        JsonNode servedYaml = new YAMLMapper().readTree(
                given().get("/q/openapi").then().statusCode(200).extract().asString());
        assertEquals(contract(), servedJson);
        assertEquals(contract(), servedYaml);
    }

    @Test
    void shouldListEveryProblemTypeTheServiceAnswersWithInTheContract() throws IOException {
        Set<String> documented = new TreeSet<>();
        contract().at("/components/schemas/Problem/properties/type/enum").forEach(t -> documented.add(t.asText()));
        Set<String> served = new TreeSet<>();
        for (ProblemType type : ProblemType.values()) {
            served.add(type.uri().toString());
        }
        assertEquals(served, documented);
    }

    @Test
    void shouldServeSwaggerUi() {
        given().get("/q/swagger-ui/").then().statusCode(200);
    }

    @Test
    void shouldAcceptAnAnswerExactlyAsDocumented() {
        ValidationReport report = Contract.validate(get(), problem(404, PROBLEM).build(), true);
        assertFalse(report.hasErrors(), report::toString);
    }

    @Test
    void shouldRefuseAnAnswerWithAStatusTheContractDoesNotList() {
        assertTrue(Contract.validate(get(), problem(418, PROBLEM.replace("404", "418")).build(), true).hasErrors());
    }

    @Test
    void shouldRefuseAnAnswerWithAFieldTheContractDoesNotList() {
        String extra = PROBLEM.replace("}", ",\"stackTrace\":\"at io.orderflow...\"}");
        assertTrue(Contract.validate(get(), problem(404, extra).build(), true).hasErrors());
    }

    @Test
    void shouldRefuseAnAnswerWithAHeaderTheContractDoesNotListForItsStatus() {
        var withRetryAfter = problem(404, PROBLEM).withHeader("Retry-After", "1").build();
        assertTrue(Contract.validate(get(), withRetryAfter, true).hasErrors());
    }

    @Test
    void shouldRefuseARequestTheContractDoesNotDescribeUnlessItIsMarkedInvalid() {
        Request anonymous = SimpleRequest.Builder.get("/orders/" + ORDER_ID).build();
        var unauthorized = SimpleResponse.Builder.status(401).withContentType("application/problem+json")
                .withHeader("WWW-Authenticate", "Bearer")
                .withBody("{\"type\":\"https://orderflow.dev/problems/unauthorized\",\"title\":\"t\",\"status\":401}")
                .build();
        assertTrue(Contract.validate(anonymous, unauthorized, true).hasErrors(), "no bearer token");
        assertFalse(Contract.validate(anonymous, unauthorized, false).hasErrors(), "the response alone is fine");
    }

    private static Request get() {
        return SimpleRequest.Builder.get("/orders/" + ORDER_ID).withAuthorization("Bearer x").build();
    }

    private static SimpleResponse.Builder problem(int status, String body) {
        return SimpleResponse.Builder.status(status).withContentType("application/problem+json").withBody(body);
    }
}
