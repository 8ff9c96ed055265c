package io.orderflow.bench;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.jmesPath;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.http.HttpRequestActionBuilder;
import java.time.Instant;
import java.util.UUID;

/**
 * The service's requests as a client sends them. Checks are kept to the status code (and the new order's id):
 * the load generator shares the machine, so it parses no more than it must. Session variables per order:
 * {@code createKey}, {@code payKey}, {@code deliverKey} (Idempotency-Keys a careful client generates once and
 * reuses on every retry), {@code tracking}, {@code orderId}, and the callback's {@code cbBody}/{@code cbSig}.
 */
public final class Requests {

    /** Two items of 12.50 EUR: the order's amount is 2500 minor units, which the callback must report. */
    static final String CREATE_BODY = "{\"currency\":\"EUR\",\"items\":[{\"sku\":\"BENCH-1\",\"quantity\":2,"
            + "\"unitPrice\":1250}]}";
    static final long AMOUNT = 2500;
    static final String CURRENCY = "EUR";

    private static final String CUSTOMER = BenchConfig.bearer(BenchConfig.CUSTOMER_TOKEN);
    private static final String OPERATOR = BenchConfig.bearer(BenchConfig.OPERATOR_TOKEN);

    private Requests() {
    }

    /** Fresh keys for one order's requests. */
    public static ChainBuilder newOrder() {
        return exec(session -> session.set("createKey", UUID.randomUUID().toString())
                .set("payKey", UUID.randomUUID().toString())
                .set("deliverKey", UUID.randomUUID().toString())
                .set("tracking", "TRK" + Long.toHexString(System.nanoTime())));
    }

    /** The provider's notification for this order, signed once: every re-delivery sends the same bytes. */
    public static ChainBuilder prepareCallback() {
        return exec(session -> {
            String body = Mockpay.succeeded("evt_" + UUID.randomUUID(), session.getString("orderId"), AMOUNT,
                    CURRENCY, "txn_" + UUID.randomUUID(), Instant.now());
            String signature = Mockpay.signature(BenchConfig.MOCKPAY_SECRET, Instant.now().getEpochSecond(), body);
            return session.set("cbBody", body).set("cbSig", signature);
        });
    }

    /** POST /orders; the first one also remembers the new order's id. */
    public static HttpRequestActionBuilder create(String name, boolean rememberId) {
        HttpRequestActionBuilder request = http(name).post("/orders")
                .header("Authorization", CUSTOMER)
                .header("Idempotency-Key", "#{createKey}")
                .body(StringBody(CREATE_BODY));
        return rememberId
                ? request.check(status().is(201), jmesPath("id").saveAs("orderId"))
                : request.check(status().is(201));
    }

    public static HttpRequestActionBuilder pay(String name) {
        return http(name).post("/orders/#{orderId}/pay")
                .header("Authorization", CUSTOMER)
                .header("Idempotency-Key", "#{payKey}")
                .body(StringBody("{\"provider\":\"mockpay\"}"))
                .check(status().is(200));
    }

    public static HttpRequestActionBuilder callback(String name) {
        return http(name).post("/payments/mockpay/callbacks")
                .header("Payment-Signature", "#{cbSig}")
                .body(StringBody(session -> session.getString("cbBody")))
                .check(status().is(200));
    }

    /** SHIP without a key: a repeat is recognised by the state machine (the order's history), not by a record. */
    public static HttpRequestActionBuilder ship(String name) {
        return http(name).post("/orders/#{orderId}/ship")
                .header("Authorization", OPERATOR)
                .body(StringBody("{\"carrier\":\"DHL\",\"trackingNumber\":\"#{tracking}\"}"))
                .check(status().is(200));
    }

    public static HttpRequestActionBuilder deliver(String name, boolean keyed) {
        HttpRequestActionBuilder request = http(name).post("/orders/#{orderId}/deliver")
                .header("Authorization", OPERATOR)
                .body(StringBody("{}"))
                .check(status().is(200));
        return keyed ? request.header("Idempotency-Key", "#{deliverKey}") : request;
    }

    public static HttpRequestActionBuilder get(String name) {
        return http(name).get("/orders/#{orderId}")
                .header("Authorization", CUSTOMER)
                .check(status().is(200));
    }
}
