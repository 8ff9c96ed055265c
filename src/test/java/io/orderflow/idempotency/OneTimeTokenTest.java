package io.orderflow.idempotency;

import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

@QuarkusTest
class OneTimeTokenTest {

    private static final String TYPES = "https://orderflow.dev/problems/";

    private static String token() {
        return given().post("/idempotency-tokens").then().statusCode(201)
                .body("token", startsWith("tok_"), "expiresAt", notNullValue()).extract().path("token");
    }

    @Test
    void shouldConsumeATokenOnceAndReplayItsRequest() {
        String token = token();
        String id = given().contentType(ContentType.JSON).header("Idempotency-Key", token)
                .body(orderBody("c-token")).post("/orders").then().statusCode(201).extract().path("id");
        given().contentType(ContentType.JSON).header("Idempotency-Key", token).body(orderBody("c-token"))
                .post("/orders").then().statusCode(201).header("Idempotent-Replayed", "true").body("id", is(id));
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = 'c-token'"));
        assertEquals("POST /orders", Sql.string(
                "select substring(consumed_scope from 'anonymous (POST /orders) ') from submit_tokens where token = ?",
                token));
    }

    @Test
    void shouldRefuseATokenUsedForAnotherRequest() {
        String token = token();
        String id = createOrder();
        postKeyed(id, "cancel", java.util.Map.of("reason", "x"), token).then().statusCode(200);
        postKeyed(createOrder(), "cancel", java.util.Map.of("reason", "x"), token).then().statusCode(422)
                .body("type", is(TYPES + "token-invalid"));
    }

    @Test
    void shouldRefuseUnknownAndExpiredTokens() {
        given().contentType(ContentType.JSON).header("Idempotency-Key", "tok_unknown").body(orderBody("c-tok-x"))
                .post("/orders").then().statusCode(422).body("type", is(TYPES + "token-invalid"));
        String token = token();
        Sql.update("update submit_tokens set expires_at = now() - interval '1 second' where token = ?", token);
        given().contentType(ContentType.JSON).header("Idempotency-Key", token).body(orderBody("c-tok-x"))
                .post("/orders").then().statusCode(422);
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = 'c-tok-x'"));
    }
}
