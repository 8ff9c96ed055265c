package io.orderflow.idempotency;

import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.support.Auth;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

@QuarkusTest
class OneTimeTokenTest {

    /** Customers are new in every run: the test database outlives runs. */
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    private static final String TYPES = "https://orderflow.dev/problems/";

    private static String token(String customer) {
        return Auth.customer(customer).post("/idempotency-tokens").then().statusCode(201)
                .body("token", startsWith("tok_"), "expiresAt", notNullValue()).extract().path("token");
    }

    @Test
    void shouldConsumeATokenOnceAndReplayItsRequest() {
        String customer = "c-token-" + run;
        String token = token(customer);
        String id = createAs(customer, token, orderBody(customer)).then().statusCode(201).extract().path("id");
        createAs(customer, token, orderBody(customer)).then().statusCode(201)
                .header("Idempotent-Replayed", "true").body("id", is(id));
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", customer));
        assertEquals("POST /orders", Sql.string("select substring(consumed_scope from 'customer:[^ ]+ (POST /orders) ')"
                + " from submit_tokens where token = ?", token));
    }

    @Test
    void shouldRefuseATokenUsedForAnotherRequest() {
        String customer = "c-token-other-" + run;
        String token = token(customer);
        cancelAs(customer, createOrder(customer), token).then().statusCode(200);
        cancelAs(customer, createOrder(customer), token).then().statusCode(422)
                .body("type", is(TYPES + "token-invalid"));
    }

    private static Response cancelAs(String customer, String orderId, String key) {
        return Auth.customer(customer).contentType(ContentType.JSON).header("Idempotency-Key", key)
                .body(Map.of("reason", "x")).post("/orders/" + orderId + "/cancel");
    }

    @Test
    void shouldRefuseUnknownAndExpiredTokens() {
        String customer = "c-tok-x-" + run;
        createAs(customer, "tok_unknown", orderBody(customer)).then().statusCode(422)
                .body("type", is(TYPES + "token-invalid"));
        String token = token(customer);
        Sql.update("update submit_tokens set expires_at = now() - interval '1 second' where token = ?", token);
        createAs(customer, token, orderBody(customer)).then().statusCode(422);
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }
}
