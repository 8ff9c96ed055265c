package io.orderflow.support;

import static io.restassured.RestAssured.given;

import io.orderflow.payment.mockpay.SignatureVerifier;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HexFormat;
import java.util.UUID;

/** Plays the payment provider {@code mockpay}: builds notifications and posts them signed. */
public final class Callbacks {

    public static final String PROVIDER = "mockpay";
    public static final String SECRET = "whsec_dev_mockpay_not_a_secret";
    public static final String ROTATED_SECRET = "whsec_dev_mockpay_rotated";

    private Callbacks() {
    }

    public static String success(String orderId, long amount, String currency, String txnId) {
        return event(UUID.randomUUID().toString(), "PAYMENT_SUCCEEDED", orderId, amount, currency, txnId);
    }

    public static String event(String eventId, String type, String orderId, long amount, String currency,
            String txnId) {
        return "{\"eventId\":\"" + eventId + "\",\"type\":\"" + type + "\",\"orderId\":\"" + orderId
                + "\",\"amount\":" + amount + ",\"currency\":\"" + currency + "\",\"providerTxnId\":\"" + txnId
                + "\",\"occurredAt\":\"" + Instant.now() + "\"}";
    }

    /** A mockpay {@code REFUND_SUCCEEDED} or {@code REFUND_FAILED} about refund {@code refundId} of ours. */
    public static String refund(String type, String orderId, long amount, String txnId, String refundId) {
        String event = event("evt-" + UUID.randomUUID(), type, orderId, amount, "EUR", txnId);
        return event.substring(0, event.length() - 1) + ",\"refundId\":\"" + refundId
                + "\",\"reason\":\"card closed\"}";
    }

    public static String signature(String secret, long timestamp, String body) {
        byte[] mac = SignatureVerifier.sign(secret, timestamp, body.getBytes(StandardCharsets.UTF_8));
        return "t=" + timestamp + ",v1=" + HexFormat.of().formatHex(mac);
    }

    public static Response deliver(String body) {
        return deliverSigned(body, signature(SECRET, Instant.now().getEpochSecond(), body));
    }

    public static Response deliverSigned(String body, String signatureHeader) {
        return post(given(), body, signatureHeader);
    }

    /** A deliberately invalid notification (no signature, not the event's shape): only its answer is validated. */
    public static Response deliverInvalid(String body, String signatureHeader) {
        return post(given().filter(Contract.invalidRequest()), body, signatureHeader);
    }

    private static Response post(RequestSpecification given, String body,
            String signatureHeader) {
        var request = given.contentType(ContentType.JSON).body(body.getBytes(StandardCharsets.UTF_8));
        if (signatureHeader != null) {
            request = request.header(SignatureVerifier.HEADER, signatureHeader);
        }
        return request.when().post("/payments/" + PROVIDER + "/callbacks");
    }
}
