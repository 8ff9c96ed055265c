package io.orderflow.idempotency;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.support.Auth;
import io.orderflow.support.Contract;
import io.orderflow.support.Sql;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Another replica holds a key (its in-flight marker stands in Redis) for a request with another body: a repeat
 * here is refused with 422 at once, since the marker already names the other fingerprint — not 409 in-flight after
 * polling for the in-flight wait.
 */
@QuarkusTest
class ForeignMarkerTest {

    @Inject
    RedisDataSource redis;

    @Test
    void shouldRefuseADifferentBodyWhileAnotherReplicaHoldsTheKey() {
        String customer = newCustomer();
        String key = newKey();
        String marker = "idem:customer:" + customer + " POST /orders :" + key;
        redis.value(String.class).setex(marker, 60, "p:" + "0".repeat(64));
        try {
            Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON).header("Idempotency-Key", key)
                    .body(orderBody(customer)).post("/orders").then().statusCode(422)
                    .contentType("application/problem+json")
                    .body("type", is("https://orderflow.dev/problems/idempotency-key-reused"));
        } finally {
            redis.key().del(marker);
        }
        assertEquals(0, Sql.count("select count(*) from orders where customer_id = ?", customer));
    }
}
