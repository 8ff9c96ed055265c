package io.orderflow.payment;

import static io.orderflow.support.Callbacks.*;
import static io.orderflow.support.OrderMother.*;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.Callbacks;
import io.orderflow.support.Contract;
import io.orderflow.support.Management;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

@QuarkusTest
class PaymentCallbackResourceTest {

    private static final String TYPES = "https://orderflow.dev/problems/";

    private static String pendingOrder() {
        String id = createOrder();
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
        return id;
    }

    private static long anomalies(String orderId, String kind) {
        return Sql.count("select count(*) from payment_anomalies where order_id = ? and kind = ?",
                UUID.fromString(orderId), kind);
    }

    @Test
    void shouldApplyEachOf20OrdersOnceUnder15ConcurrentIdenticalDeliveries() {
        List<String> orders = Parallel.run(20, i -> pendingOrder());
        for (String id : orders) {
            String body = success(id, AMOUNT, "EUR", "txn-" + id);
            List<Integer> statuses = Parallel.run(15, i -> deliver(body).statusCode());
            assertTrue(statuses.stream().allMatch(s -> s == 200), statuses.toString());
            assertEquals(1, Sql.historyCount(id, "PAYMENT_SUCCEEDED"));
        }
    }

    @Test
    void shouldReplayTheFirstResponseToARedeliveryOfTheSameEvent() {
        String id = pendingOrder();
        String body = success(id, AMOUNT, "EUR", "txn-1-" + id);
        String first = deliver(body).then().statusCode(200).body("outcome", is("applied"), "status", is("PAID"))
                .extract().asString();
        var again = deliver(body);
        assertEquals(200, again.statusCode());
        assertEquals("true", again.header("Idempotent-Replayed"));
        assertEquals(first, again.asString(), "the stored first response, byte for byte");
        Auth.operator().get("/orders/" + id + "/transitions").then()
                .body("find { it.event == 'PAYMENT_SUCCEEDED' }.source", is("mockpay"));
        assertEquals(body.substring(12, 48), Sql.string(
                "select request_key from order_transitions where order_id = ? and event = 'PAYMENT_SUCCEEDED'",
                UUID.fromString(id)), "the history names the provider's event id");
    }

    @Test
    void shouldApplyAProviderEventWhoseIdLooksLikeAOneTimeToken() {
        String id = pendingOrder();
        String eventId = "tok_" + UUID.randomUUID();
        deliver(event(eventId, "PAYMENT_SUCCEEDED", id, AMOUNT, "EUR", "txn-tok-" + id)).then().statusCode(200)
                .body("outcome", is("applied"), "status", is("PAID"));
    }

    @Test
    void shouldTreatTheSameSuccessUnderANewEventIdAsOnePayment() {
        String id = pendingOrder();
        deliver(success(id, AMOUNT, "EUR", "txn-same-" + id)).then().statusCode(200);
        deliver(success(id, AMOUNT, "EUR", "txn-same-" + id)).then().statusCode(200).body("outcome", is("duplicate"));
        assertEquals(1, Sql.historyCount(id, "PAYMENT_SUCCEEDED"));
        assertEquals(0, anomalies(id, "double-capture"));
    }

    @Test
    void shouldRefuseBadSignaturesAndChangeNothing() {
        String id = pendingOrder();
        String body = success(id, AMOUNT, "EUR", "txn-sig-" + id);
        long now = Instant.now().getEpochSecond();
        deliverSigned(body, signature("wrong-secret", now, body)).then().statusCode(401)
                .contentType("application/problem+json").body("type", is(TYPES + "signature-invalid"));
        // 310, not 301: the service's clock may have ticked a second past the test's
        deliverSigned(body, signature(SECRET, now - 310, body)).then().statusCode(401);
        deliverSigned(body, signature(SECRET, now + 310, body)).then().statusCode(401);
        Callbacks.deliverInvalid(body, null).then().statusCode(400).body("type", is(TYPES + "signature-missing"));
        deliverSigned(body, "v1=abc,t=notanumber").then().statusCode(400);
        deliverSigned(body, "t=" + now + ",v1=zz").then().statusCode(400);
        String tampered = body.replace("\"amount\":" + AMOUNT, "\"amount\":1");
        deliverSigned(tampered, signature(SECRET, now, body)).then().statusCode(401);
        Auth.operator().get("/orders/" + id).then().body("status", is("PAYMENT_PENDING"));
        assertEquals(0, Sql.count("select count(*) from idempotency_keys where scope like 'provider:%'"
                + " and order_id = ?", UUID.fromString(id)));
    }

    @Test
    void shouldAcceptOldAndNewSecretWhileBothAreConfigured() {
        String first = pendingOrder();
        String second = pendingOrder();
        long now = Instant.now().getEpochSecond();
        String a = success(first, AMOUNT, "EUR", "txn-a-" + first);
        String b = success(second, AMOUNT, "EUR", "txn-b-" + second);
        deliverSigned(a, signature(SECRET, now, a)).then().statusCode(200);
        deliverSigned(b, signature(ROTATED_SECRET, now, b)).then().statusCode(200);
        String c = success(pendingOrder(), AMOUNT, "EUR", "txn-c-" + UUID.randomUUID());
        String both = signature("old-revoked", now, c) + ",v1="
                + signature(ROTATED_SECRET, now, c).substring(signature(ROTATED_SECRET, now, c).indexOf("v1=") + 3);
        deliverSigned(c, both).then().statusCode(200);
    }

    @Test
    void shouldAcknowledgeAnAmountOrCurrencyMismatchWith200MoveNothingAndListTheAnomaly() {
        String id = pendingOrder();
        String eventId = UUID.randomUUID().toString();
        deliver(event(eventId, "PAYMENT_SUCCEEDED", id, AMOUNT + 1, "EUR", "txn-m-" + id)).then().statusCode(200)
                .contentType("application/json").body("outcome", is("amount-mismatch"), "status",
                        is("PAYMENT_PENDING"));
        deliver(event(UUID.randomUUID().toString(), "PAYMENT_SUCCEEDED", id, AMOUNT, "USD", "txn-m-" + id)).then()
                .statusCode(200).body("outcome", is("amount-mismatch"));
        // the redelivery gets the stored answer again, and the anomaly is not recorded twice
        deliver(event(eventId, "PAYMENT_SUCCEEDED", id, AMOUNT + 1, "EUR", "txn-m-" + id)).then().statusCode(200)
                .header("Idempotent-Replayed", "true").body("outcome", is("amount-mismatch"));
        Auth.operator().get("/orders/" + id).then().body("status", is("PAYMENT_PENDING"));
        assertEquals(2, anomalies(id, "amount-mismatch"));
        Auth.operator().queryParam("limit", 100).get("/payments/anomalies").then().statusCode(200)
                .body("items.findAll { it.orderId == '" + id + "' }.kind", everyItem(is("amount-mismatch")))
                .body("items[0]", hasKey("detail"));
    }

    @Test
    void shouldRefuseAnAnomalyPageSizeOrCursorThatIsNotANumberWithA400Problem() {
        for (String limit : List.of("abc", "1e3", "0", "101", "-1", "9999999999")) {
            Auth.operator().filter(Contract.invalidRequest()).queryParam("limit", limit).get("/payments/anomalies")
                    .then().statusCode(400).contentType("application/problem+json")
                    .body("type", is(TYPES + "invalid-request"), "detail", containsString("limit"));
        }
        for (String after : List.of("%00", "abc", "-5", "+5", "1.5", "99999999999999999999", "%F0%9F%92%A5")) {
            Auth.operator().filter(Contract.invalidRequest()).urlEncodingEnabled(false).queryParam("after", after)
                    .get("/payments/anomalies").then().statusCode(400).contentType("application/problem+json")
                    .body("type", is(TYPES + "invalid-request"), "detail", containsString("after"));
        }
        Auth.operator().queryParam("limit", "5").queryParam("after", "0").get("/payments/anomalies").then()
                .statusCode(200);
    }

    @Test
    void shouldKeepASecondCaptureOfAnotherAmountAsADoubleCaptureWithItsOwnRefundOwed() {
        String id = pendingOrder();
        deliver(success(id, AMOUNT, "EUR", "txn-own-" + id)).then().statusCode(200).body("status", is("PAID"));
        deliver(success(id, AMOUNT + 500, "EUR", "txn-more-" + id)).then().statusCode(200)
                .body("outcome", is("double-capture"), "status", is("PAID"));
        assertEquals("REFUND_OWED", Sql.string("select state from payment_captures where txn_id = ?",
                "txn-more-" + id));
        assertEquals(AMOUNT + 500, Sql.count("select amount from provider_commands where capture_txn_id = ?",
                "txn-more-" + id), "the refund owed gives back what that capture took");
        assertEquals(1, anomalies(id, "double-capture"));
        assertEquals(List.of(), Sql.violations(List.of(id)));
    }

    @Test
    void shouldMatchARefundToItsCaptureBeforeCheckingItsAmountAgainstThatCapture() {
        String id = pendingOrder();
        deliver(success(id, AMOUNT, "EUR", "txn-own-" + id)).then().statusCode(200);
        deliver(success(id, AMOUNT + 500, "EUR", "txn-more-" + id)).then().statusCode(200)
                .body("outcome", is("double-capture"));
        // a refund that names the double capture with an amount neither capture took: that capture's mismatch
        deliver(event(UUID.randomUUID().toString(), "REFUND_SUCCEEDED", id, AMOUNT + 1, "EUR", "txn-more-" + id))
                .then().statusCode(200).body("outcome", is("amount-mismatch"), "status", is("PAID"));
        assertEquals("REFUND_OWED", Sql.string("select state from payment_captures where txn_id = ?",
                "txn-more-" + id));
        // the double capture's own refund: matched to it, not to the order's amount, and it closes that capture only
        deliver(event(UUID.randomUUID().toString(), "REFUND_SUCCEEDED", id, AMOUNT + 500, "EUR", "txn-more-" + id))
                .then().statusCode(200).body("outcome", is("other-capture"), "status", is("PAID"));
        assertEquals("REFUNDED", Sql.string("select state from payment_captures where txn_id = ?", "txn-more-" + id));
        assertEquals("CAPTURED", Sql.string("select state from payment_captures where txn_id = ?", "txn-own-" + id));
        assertEquals(1, anomalies(id, "amount-mismatch"));
        Auth.operator().get("/orders/" + id).then().body("status", is("PAID"));
        assertEquals(List.of(), Sql.violations(List.of(id)));
    }

    @Test
    void shouldAnswer200ButRecordADoubleCaptureWhenAPaidOrderIsCapturedAgain() {
        String id = pendingOrder();
        deliver(success(id, AMOUNT, "EUR", "txn-first-" + id)).then().statusCode(200);
        deliver(success(id, AMOUNT, "EUR", "txn-second-" + id)).then().statusCode(200)
                .body("outcome", is("double-capture"), "status", is("PAID"));
        assertEquals(1, Sql.historyCount(id, "PAYMENT_SUCCEEDED"));
        assertEquals(1, anomalies(id, "double-capture"));
        Management.given().get("/q/metrics").then()
                .body(containsString("orderflow_payments_anomalies_total{kind=\"double-capture\"}"));
    }

    @Test
    void shouldOweARefundForASuccessAfterCancelAndCloseItWithTheRefund() {
        String id = pendingOrder();
        post(id, "cancel", Map.of("reason", "too slow")).then().statusCode(200).body("status", is("CANCELLED"));
        deliver(success(id, AMOUNT, "EUR", "txn-late-" + id)).then().statusCode(200).body("status", is("REFUND_PENDING"));
        deliver(event(UUID.randomUUID().toString(), "REFUND_SUCCEEDED", id, AMOUNT, "EUR", "txn-late-" + id)).then()
                .statusCode(200).body("status", is("REFUNDED"));
        Auth.operator().get("/orders/" + id).then()
                .body("status", is("REFUNDED"), "payment.refundedAt", notNullValue());
    }

    @Test
    void shouldReturnAFailedPaymentToCreatedAndApplyALaterSuccess() {
        String id = pendingOrder();
        deliver(event(UUID.randomUUID().toString(), "PAYMENT_FAILED", id, AMOUNT, "EUR", "txn-x-" + id)).then()
                .statusCode(200).body("status", is("CREATED"));
        postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200).body("status", is("PAYMENT_PENDING"));
        deliver(success(id, AMOUNT, "EUR", "txn-y-" + id)).then().statusCode(200).body("status", is("PAID"));
    }

    @Test
    void shouldAcknowledgeAnEventTheOrdersStatusNoLongerTakesWith200AndRecordIt() {
        String id = pendingOrder();
        deliver(success(id, AMOUNT, "EUR", "txn-ok-" + id)).then().statusCode(200);
        deliver(event(UUID.randomUUID().toString(), "PAYMENT_FAILED", id, AMOUNT, "EUR", "txn-ok-" + id)).then()
                .statusCode(200).body("outcome", is("illegal"), "status", is("PAID"));
        Auth.operator().get("/orders/" + id).then().body("status", is("PAID"));
        assertEquals(1, anomalies(id, "stale-event"));
    }

    @Test
    void shouldAnswer404ForAnUnknownProviderAndAcknowledgeASignedBadEventAsAnAnomaly() {
        given().filter(Contract.invalidRequest()).contentType(ContentType.JSON).body("{}")
                .header("Payment-Signature", "t=1,v1=00").post("/payments/nopay/callbacks").then().statusCode(404)
                .body("type", is(TYPES + "not-found"));
        // verified, but not a valid notification: the provider would re-send a 4xx for days, so it is recorded
        // and acknowledged
        String eventId = "e-" + UUID.randomUUID();
        String bad = "{\"eventId\":\"" + eventId + "\",\"type\":\"SHIP\"}";
        Callbacks.deliverInvalid(bad, signature(SECRET, Instant.now().getEpochSecond(), bad)).then().statusCode(200)
                .contentType(ContentType.JSON).body("outcome", is("invalid"), "eventId", is(eventId));
        Callbacks.deliverInvalid("not json", signature(SECRET, Instant.now().getEpochSecond(), "not json")).then()
                .statusCode(200).body("outcome", is("invalid"));
        assertEquals(1, Sql.count("select count(*) from payment_anomalies where event_id = ?"
                + " and kind = 'invalid-event' and order_id is null", eventId));
    }

    @Test
    void shouldAnswer404ForAProviderThatIsNotConfigured() {
        given().filter(Contract.invalidRequest()).contentType(ContentType.JSON).body("{}")
                .header("Stripe-Signature", "t=1,v1=00").post("/payments/stripe/callbacks").then().statusCode(404)
                .body("type", is(TYPES + "not-found"));
        given().filter(Contract.invalidRequest()).contentType(ContentType.JSON).body("{}")
                .post("/payments/wechatpay/callbacks").then().statusCode(404);
    }

    @Test
    void shouldAcknowledgeButNeverCoerceAVerifiedEventWhoseAmountIsNotAnInteger() {
        String id = pendingOrder();
        for (String amount : List.of("2500.9", "\"" + AMOUNT + "\"", "true", AMOUNT + ".0")) {
            String body = success(id, AMOUNT, "EUR", "txn-coerced-" + id).replace("\"amount\":" + AMOUNT,
                    "\"amount\":" + amount);
            Callbacks.deliverInvalid(body, signature(SECRET, Instant.now().getEpochSecond(), body)).then()
                    .statusCode(200).body("outcome", is("invalid"), "orderId", is(id));
        }
        Auth.operator().get("/orders/" + id).then().body("status", is("PAYMENT_PENDING"));
        assertEquals(4, anomalies(id, "invalid-event"));
    }

    @Test
    void shouldAcknowledgeAnEventTypeMockpayDoesNotSendAndChangeNothing() {
        String id = pendingOrder();
        String authorized = event(UUID.randomUUID().toString(), "PAYMENT_AUTHORIZED", id, AMOUNT, "EUR",
                "txn-auth-" + id);
        Callbacks.deliverInvalid(authorized, signature(SECRET, Instant.now().getEpochSecond(), authorized)).then()
                .statusCode(200).body("outcome", is("ignored"));
        Auth.operator().get("/orders/" + id).then().body("status", is("PAYMENT_PENDING"));
    }
}
