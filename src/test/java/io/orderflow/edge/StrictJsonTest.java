package io.orderflow.edge;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.support.Auth;
import io.orderflow.support.Contract;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import org.junit.jupiter.api.Test;

/**
 * A body means exactly one thing or it is refused: no bytes after the JSON value, no field twice, no float or
 * string where an integer belongs. Each case is a 400 problem and no order.
 */
@QuarkusTest
class StrictJsonTest {

    private static final String TYPES = "https://orderflow.dev/problems/";

    private static String order(String customer, String currency, String item) {
        return "{\"customerId\":\"" + customer + "\",\"currency\":\"" + currency + "\",\"items\":[" + item + "]}";
    }

    private static String item(String quantity, String unitPrice) {
        return "{\"sku\":\"SKU-1\",\"quantity\":" + quantity + ",\"unitPrice\":" + unitPrice + "}";
    }

    private static ValidatableResponse create(String customer, String body) {
        return Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON).header("Idempotency-Key", newKey()).body(body)
                .post("/orders").then().contentType("application/problem+json");
    }

    private static long orders(String customer) {
        return Sql.count("select count(*) from orders where customer_id = ?", customer);
    }

    @Test
    void shouldRefuseBytesAfterTheJsonValue() {
        String customer = newCustomer();
        create(customer, order(customer, "EUR", item("1", "100")) + "{\"currency\":\"USD\"}").statusCode(400)
                .body("type", is(TYPES + "malformed-body"));
        create(customer, order(customer, "EUR", item("1", "100")) + " garbage").statusCode(400);
        assertEquals(0, orders(customer));
    }

    @Test
    void shouldRefuseAFieldSentTwice() {
        String customer = newCustomer();
        String twice = "{\"customerId\":\"" + customer + "\",\"currency\":\"EUR\",\"currency\":\"USD\",\"items\":["
                + item("1", "100") + "]}";
        create(customer, twice).statusCode(400).body("type", is(TYPES + "malformed-body"), "field", is("currency"));
        String nested = order(customer, "EUR", "{\"sku\":\"A\",\"sku\":\"B\",\"quantity\":1,\"unitPrice\":1}");
        create(customer, nested).statusCode(400).body("field", is("items[].sku"));
        assertEquals(0, orders(customer));
    }

    @Test
    void shouldRefuseFloatsAndStringsWhereAnIntegerBelongs() {
        String customer = newCustomer();
        create(customer, order(customer, "EUR", item("1", "1.5"))).statusCode(400)
                .body("type", is(TYPES + "malformed-body"), "field", is("items[].unitPrice"));
        create(customer, order(customer, "EUR", item("1", "100.0"))).statusCode(400);
        create(customer, order(customer, "EUR", item("\"2\"", "100"))).statusCode(400)
                .body("field", is("items[].quantity"));
        create(customer, order(customer, "EUR", item("true", "100"))).statusCode(400);
        create(customer, order(customer, "EUR", item("\"\"", "100"))).statusCode(400);
        assertEquals(0, orders(customer));
    }

    @Test
    void shouldRefuseANumberWhereAStringBelongs() {
        String customer = newCustomer();
        create(customer, order(customer, "EUR", "{\"sku\":123,\"quantity\":1,\"unitPrice\":1}")).statusCode(400)
                .body("field", is("items[].sku"));
        assertEquals(0, orders(customer));
    }
}
