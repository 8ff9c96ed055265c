package io.orderflow.webhooks;

import static io.orderflow.support.OrderMother.newKey;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.orderflow.support.Auth;
import io.orderflow.support.Sql;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * No webhook secret at rest beside its endpoint (issue 43, item 10): the idempotency records of a registration and a
 * rotation keep the endpoint's id alone, nothing of the answer is cached in Redis, and a retried request answers the
 * endpoint as it is now: the current secret while it exists (never the one a rotation replaced), 404 once deleted.
 */
@QuarkusTest
class WebhookEndpointSecretsTest {

    @Inject
    RedisDataSource redis;

    @AfterEach
    void deleteEndpoints() {
        Sql.update("update webhook_deliveries set status = 'CANCELLED' where status = 'PENDING'");
        Sql.update("update webhook_endpoints set status = 'deleted' where status <> 'deleted'");
    }

    private static Response rotate(String endpoint, String key) {
        return Auth.operator().header("Idempotency-Key", key).post("/webhook-endpoints/" + endpoint + "/rotate-secret");
    }

    /** What PostgreSQL and Redis keep under the request's key: neither holds a secret. */
    private void assertNoSecretStoredUnder(String key) {
        assertEquals(List.of(), Sql.strings("select cast(result as text) from idempotency_keys where idem_key = ?"
                + " and cast(result as text) like '%whsec_%'", key), "the record holds no secret");
        assertEquals(1, Sql.count("select count(*) from idempotency_keys where idem_key = ?", key));
        for (String cached : redis.key().keys("idem:*:" + key)) {
            String value = String.valueOf(redis.value(String.class).get(cached));
            assertEquals(false, value.contains("whsec_"), "Redis holds no secret: " + cached);
        }
    }

    @Test
    void shouldKeepNoSecretWithTheKeyAndAnswerARetryWithTheEndpointAsItIsNow() {
        String key = newKey();
        Map<String, Object> body = Map.of("url", "http://127.0.0.1:9/hooks/secrets");
        Response first = WebhooksTest.register(key, body);
        first.then().statusCode(201).header("Cache-Control", "no-store");
        String endpoint = first.path("id");
        String secret = first.path("secret");
        assertNoSecretStoredUnder(key);

        WebhooksTest.register(key, body).then().statusCode(201).header("Idempotent-Replayed", "true")
                .header("Cache-Control", "no-store").header("Location", "/webhook-endpoints/" + endpoint)
                .body("id", equalTo(endpoint)).body("secret", equalTo(secret));

        String rotation = newKey();
        String rotated = rotate(endpoint, rotation).then().statusCode(200).header("Cache-Control", "no-store")
                .extract().path("secret");
        assertNotEquals(secret, rotated);
        assertNoSecretStoredUnder(rotation);
        String again = rotate(endpoint, newKey()).then().statusCode(200).extract().path("secret");

        rotate(endpoint, rotation).then().statusCode(200).header("Idempotent-Replayed", "true")
                .body("secret", equalTo(again));
        WebhooksTest.register(key, body).then().statusCode(201).body("secret", equalTo(again));
        assertEquals(again, Sql.string("select secret from webhook_endpoints where id = cast(? as uuid)", endpoint),
                "the retries rotated nothing more and made no endpoint");
        assertEquals(1, Sql.count("select count(*) from webhook_endpoints where url = ? and status <> 'deleted'",
                "http://127.0.0.1:9/hooks/secrets"));

        Auth.operator().delete("/webhook-endpoints/" + endpoint).then().statusCode(204);

        WebhooksTest.register(key, body).then().statusCode(404).contentType("application/problem+json")
                .body("type", equalTo("https://orderflow.dev/problems/not-found"));
        rotate(endpoint, rotation).then().statusCode(404)
                .body("type", equalTo("https://orderflow.dev/problems/not-found"));
    }
}
