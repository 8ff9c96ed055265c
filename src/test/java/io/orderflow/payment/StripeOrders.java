package io.orderflow.payment;

import static com.github.tomakehurst.wiremock.client.WireMock.okJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static io.orderflow.support.OrderMother.createAs;
import static io.orderflow.support.OrderMother.newCustomer;
import static io.orderflow.support.OrderMother.newKey;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.support.Auth;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Orders paid through Stripe (played by the sandbox's WireMock), and the calls the refund tests make about them. */
final class StripeOrders {

    /** An order paid through Stripe: its charge and PaymentIntent, named after the test, and its id. */
    record Scene(String suffix, String charge, String intent, String orderId) {
    }

    private StripeOrders() {
    }

    /** A new order of {@code amount} EUR paid through Stripe with a charge and an intent named after {@code name}. */
    static Scene paid(WireMockServer server, String name, long amount) {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String charge = "ch_" + name + "_" + suffix;
        String intent = "pi_" + name + "_" + suffix;
        String customer = newCustomer();
        String id = createAs(customer, newKey(), Map.of("customerId", customer, "currency", "EUR",
                "items", List.of(Map.of("sku", "SKU-1", "quantity", 1, "unitPrice", amount))))
                .then().statusCode(201).extract().path("id");
        server.stubFor(post("/v1/payment_intents").willReturn(okJson(StripeFixtures.intent(intent,
                "requires_payment_method", String.valueOf(amount), "eur", null))));
        Auth.customer(customer).contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(Map.of("provider", "stripe")).post("/orders/" + id + "/pay").then().statusCode(200);
        webhook(StripeFixtures.event("payment_intent.succeeded", StripeFixtures.intent(intent, "succeeded",
                String.valueOf(amount), "eur", charge))).then().statusCode(200);
        Auth.operator().get("/orders/" + id).then().body("status", is("PAID"));
        return new Scene(suffix, charge, intent, id);
    }

    /** A Stripe webhook with {@code payload}, signed as Stripe signs it. */
    static Response webhook(String payload) {
        return given().contentType("application/json; charset=utf-8")
                .header("Stripe-Signature", StripeFixtures.signature(StripeFixtures.SECRET,
                        Instant.now().getEpochSecond(), payload))
                .body(payload.getBytes(StandardCharsets.UTF_8)).post("/payments/stripe/callbacks");
    }

    /** An operator's refund of {@code amount} of the order, with Idempotency-Key {@code key}. */
    static Response refund(String orderId, long amount, String key) {
        return Auth.operator().contentType(ContentType.JSON).header("Idempotency-Key", key)
                .body(Map.of("amount", amount, "reason", "returned item")).post("/orders/" + orderId + "/refunds");
    }
}
