package io.orderflow.edge;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.Callbacks;
import io.orderflow.support.Contract;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Every endpoint that takes a body or a header, fed every hostile string (NUL, control characters, lone
 * surrogates) in every string field and every JSON oddity (trailing tokens, fields sent twice, coerced numbers,
 * wrong shapes): no 500, every error problem+json (a verified provider event: the provider's own 2xx ack), and
 * nothing written — no order, no transition, no stored key, no submit token, no payment attempt, capture, refund
 * command or anomaly (a signed, verified event that is no valid notification is recorded as invalid-event, by design).
 */
@QuarkusTest
class HostileInputTest {

    /** As JSON escapes inside a string literal, the way an attacker sends them. */
    private static final List<String> HOSTILE_TEXT = List.of("\\u0000", "A\\u0000B", "\\u0001", "\\u0007", "\\u0008",
            "\\t", "\\n", "\\r", "\\u001b[31m", "\\u007f", "\\u0085", "\\u009f", "\\ud800", "\\udfff", "A\\udc00\\ud800B",
            "\\ud83d");

    private static final String TYPES = "https://orderflow.dev/problems/";

    /** The probes are independent (each refused, none writes): sent a few at a time, they take half as long. */
    private static final int PROBING_THREADS = 4;

    private final List<String> failures = Collections.synchronizedList(new ArrayList<>());

    @Test
    void shouldNeverAnswer500NorWriteAnythingForHostileBodiesAndHeaders() {
        String customer = newCustomer();
        String created = createOrder(customer);
        String paid = paidOrder();
        long transitionsBefore = transitions(created) + transitions(paid);
        Map<String, Long> rowsBefore = otherWrites();

        List<Runnable> probes = new ArrayList<>();
        for (String template : orderTemplates(customer)) {
            for (String body : variants(template)) {
                probeInto(probes, "POST /orders " + body, () ->
                        Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                        .header("Idempotency-Key", newKey()).body(body).post("/orders"));
            }
        }
        for (String[] action : new String[][] { { "pay", "{\"provider\":\"%s\"}" },
                { "ship", "{\"carrier\":\"%s\",\"trackingNumber\":\"JD1\"}" },
                { "ship", "{\"carrier\":\"DHL\",\"trackingNumber\":\"%s\"}" },
                { "cancel", "{\"reason\":\"%s\"}" }, { "deliver", "{%s}" } }) {
            String order = action[0].equals("pay") ? created : paid;
            // a specification per request: one is mutable, and the probes run at once
            Supplier<RequestSpecification> as = action[0].equals("pay")
                    ? () -> Auth.customer(customer)
                    : Auth::operator;
            // cancel and deliver may be sent without a body: an empty one is a legitimate request, not hostile
            boolean bodyRequired = action[0].equals("pay") || action[0].equals("ship");
            for (String body : variants(action[1])) {
                if (!bodyRequired && (body.isEmpty() || body.equals("null"))) {
                    continue;
                }
                String path = "/orders/" + order + "/" + action[0];
                probeInto(probes, "POST " + action[0] + " " + body, () ->
                        as.get().filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                        .header("Idempotency-Key", newKey()).body(body).post(path));
            }
        }
        for (String key : List.of("", " ", "\"\"", "x".repeat(300), "caf\u00e9", "\u00ff\u00fe")) {
            probeInto(probes, "Idempotency-Key " + key, () ->
                    Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                    .header("Idempotency-Key", key).body(orderBody(customer)).post("/orders"));
        }
        for (String version : List.of("W/\"x\"", "-1", "99999999999999999999", "abc", "\"\"", "caf\u00e9",
                "x".repeat(300))) {
            probeInto(probes, "If-Match " + version, () ->
                    Auth.customer(customer).filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                    .header("Idempotency-Key", newKey()).header("If-Match", version)
                    .body("{\"provider\":\"mockpay\"}").post("/orders/" + created + "/pay"));
        }
        for (String value : hostileHeaderValues()) {
            probeInto(probes, "bearer " + value, () ->
                    Auth.bearer(value).filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                    .header("Idempotency-Key", newKey()).body(orderBody(customer)).post("/orders"));
            probeInto(probes, "token bearer " + value, () ->
                    Auth.bearer(value).filter(Contract.invalidRequest()).post("/idempotency-tokens"));
            probeInto(probes, "signature " + value, () ->
                    RestAssured.given().filter(Contract.invalidRequest()).contentType(ContentType.JSON)
                    .header("Payment-Signature", value).body(Callbacks.success(created, AMOUNT, "EUR", "t1"))
                    .post("/payments/" + Callbacks.PROVIDER + "/callbacks"));
        }
        for (String query : new String[] { "limit=abc", "limit=1.5", "limit=-1", "limit=", "status=%00",
                "status=PAID%00", "after=%00", "after=abc", "customerId=%00" }) {
            probeInto(probes, "GET /orders?" + query, () ->
                    Auth.operator().filter(Contract.invalidRequest()).get("/orders?" + query));
        }
        for (String template : callbackTemplates(created)) {
            for (String body : variants(template)) {
                probes.add(() -> {
                    Response signed = Callbacks.deliverInvalid(body,
                            Callbacks.signature(Callbacks.SECRET, Instant.now().getEpochSecond(), body));
                    check("signed callback " + body, signed);
                    if (signed.statusCode() < 300 && !"invalid".equals(signed.jsonPath().getString("outcome"))) {
                        failures.add("signed callback " + body + ": applied as " + signed.asString());
                    }
                });
            }
        }
        Parallel.run(probes.size(), PROBING_THREADS, i -> {
            probes.get(i).run();
            return null;
        });

        assertTrue(failures.isEmpty(), failures.size() + " bad answers:\n" + String.join("\n", failures));
        assertEquals(1, Sql.count("select count(*) from orders where customer_id = ?", customer),
                "only the order created as the fixture");
        assertEquals(transitionsBefore, transitions(created) + transitions(paid), "no transition was written");
        assertEquals(1, Sql.count("select count(*) from idempotency_keys where scope like ?",
                "customer:" + customer + " %"), "only the fixture's create key is stored");
        assertEquals(rowsBefore, otherWrites(), "no token, payment attempt, capture, refund command or anomaly "
                + "(but the invalid-event record of a signed, invalid callback) was written");
    }

    /**
     * The operators' pages' query parameters, hostile: each a 400 problem (a number that is no number was a 404).
     * Listing writes nothing, so nothing may have been written.
     */
    @Test
    void shouldAnswerHostileOperatorPageParametersWithA400ProblemAndWriteNothing() {
        Map<String, Long> rowsBefore = otherWrites();
        for (String query : new String[] { "/payments/anomalies?limit=abc", "/payments/anomalies?limit=1.5",
            "/payments/anomalies?limit=-1", "/payments/anomalies?limit=101", "/payments/anomalies?limit=%00",
            "/payments/anomalies?after=%00", "/payments/anomalies?after=abc", "/payments/anomalies?after=1.5",
            "/ops/payments-stuck?limit=%00", "/ops/payments-stuck?limit=1e2", "/ops/payments-stuck?after=%00",
            "/ops/payments-stuck?after=" + "f".repeat(300) }) {
            Response answer = Auth.operator().filter(Contract.invalidRequest()).get(query);
            check("GET " + query, answer);
            if (answer.statusCode() != 400 || !(TYPES + "invalid-request").equals(answer.path("type"))) {
                failures.add("GET " + query + ": " + answer.statusCode() + " " + answer.asString());
            }
        }
        assertTrue(failures.isEmpty(), failures.size() + " bad answers:\n" + String.join("\n", failures));
        assertEquals(rowsBefore, otherWrites());
    }

    /**
     * Rows of the tables hostile input could reach besides orders, transitions and keys. A signed callback that is
     * no valid notification is recorded as an invalid-event anomaly by design, so those are not counted.
     */
    private static Map<String, Long> otherWrites() {
        Map<String, Long> rows = new LinkedHashMap<>();
        for (String table : List.of("submit_tokens", "payment_attempts", "payment_captures", "provider_commands")) {
            rows.put(table, Sql.count("select count(*) from " + table));
        }
        rows.put("payment_anomalies", Sql.count("select count(*) from payment_anomalies where kind <> 'invalid-event'"));
        return rows;
    }

    /** Adds a request to send and check to {@code probes}. */
    private void probeInto(List<Runnable> probes, String what, Supplier<Response> send) {
        probes.add(() -> check(what, send.get()));
    }

    private void check(String what, Response response) {
        int status = response.statusCode();
        String type = String.valueOf(response.contentType());
        if (status >= 500) {
            failures.add(what + ": " + status + " " + response.asString());
        } else if (status >= 400 && !type.startsWith("application/problem+json")) {
            failures.add(what + ": " + status + " as " + type + " " + response.asString());
        }
    }

    private static long transitions(String orderId) {
        return Sql.count("select count(*) from order_transitions where order_id = ?::uuid", orderId);
    }

    private static List<String> orderTemplates(String customer) {
        String item = "{\"sku\":\"S\",\"quantity\":1,\"unitPrice\":100}";
        return List.of(
                "{\"customerId\":\"%s\",\"currency\":\"EUR\",\"items\":[" + item + "]}",
                "{\"customerId\":\"" + customer + "\",\"currency\":\"%s\",\"items\":[" + item + "]}",
                "{\"customerId\":\"" + customer + "\",\"currency\":\"EUR\",\"items\":[{\"sku\":\"%s\",\"quantity\":1,"
                        + "\"unitPrice\":100}]}",
                "{\"customerId\":\"" + customer + "\",\"currency\":\"EUR\",\"items\":[" + item + "],%s}");
    }

    private static List<String> callbackTemplates(String orderId) {
        String eventId = UUID.randomUUID().toString();
        return List.of(
                Callbacks.event("%s", "PAYMENT_SUCCEEDED", orderId, AMOUNT, "EUR", "t1"),
                Callbacks.event(eventId, "%s", orderId, AMOUNT, "EUR", "t1"),
                Callbacks.event(eventId, "PAYMENT_SUCCEEDED", "%s", AMOUNT, "EUR", "t1"),
                Callbacks.event(eventId, "PAYMENT_SUCCEEDED", orderId, AMOUNT, "%s", "t1"),
                Callbacks.event(eventId, "PAYMENT_SUCCEEDED", orderId, AMOUNT, "EUR", "%s"));
    }

    /**
     * The template with each hostile string in its {@code %s}, and the template (made valid with "x") followed by
     * each JSON oddity. A template whose %s stands outside a string (the members slot) gets oddities as members.
     */
    private static List<String> variants(String template) {
        List<String> out = new ArrayList<>();
        boolean inString = template.contains("\"%s\"");
        if (inString) {
            HOSTILE_TEXT.forEach(text -> out.add(template.replace("%s", text)));
        } else {
            for (String member : new String[] { "\"x\":\"\\u0000\"", "\"\\u0000\":1", "\"status\":\"PAID\"",
                "\"items\":[]", "\"currency\":\"USD\"" }) {
                out.add(template.replace("%s", member));
            }
        }
        String valid = template.replace("%s", inString ? "x" : "\"x\":1");
        String first = inString ? template.substring(0, template.indexOf("\"%s\"")) : null;
        out.add(valid + " garbage");
        out.add(valid + "{}");
        out.add(valid + valid);
        out.add("[" + valid + "]");
        out.add(valid.replaceFirst("\\{", "{\"a\":1,\"a\":2,"));
        if (first != null) {
            String key = first.substring(first.lastIndexOf('"', first.length() - 3) + 1, first.length() - 2);
            String rest = template.substring(template.indexOf("\"%s\"") + 4);
            out.add(first + "\"x\"," + "\"" + key + "\":\"y\"" + rest); // the same field twice
            for (String odd : new String[] { "1", "1.5", "true", "[]", "{}", "\"\\ud800\"",
                "\"" + "x".repeat(70_000) + "\"" }) {
                out.add(first + odd + rest);
            }
        }
        // number oddities only where the template has numbers (a valid body itself is never sent)
        for (String odd : new String[] { valid.replace(":1,", ":1.5,").replace(":100}", ":1.0E2}"),
            valid.replace(":1,", ":\"1\",").replace(":100}", ":\"100\"}"), valid.replace(":1,", ":true,"),
            valid.replace(":1,", ":99999999999999999999999,") }) {
            if (!odd.equals(valid)) {
                out.add(odd);
            }
        }
        out.add("");
        out.add("null");
        out.add("{");
        out.add("[".repeat(5000));
        out.add("\u0000");
        return out;
    }

    private static List<String> hostileHeaderValues() {
        return List.of("", " ", "\"\"", "\"", "x".repeat(300), "caf\u00e9", "\u00ff\u00fe", "W/\"1\"", "*", "-1",
                "99999999999999999999", "abc", "t=,v1=", "t=1,v1=zz", "Bearer", "a b c");
    }
}
