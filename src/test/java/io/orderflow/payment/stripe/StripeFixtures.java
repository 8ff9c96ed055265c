package io.orderflow.payment.stripe;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.client.WireMock;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Plays Stripe in tests: builds event and object JSON the way Stripe sends it (API version 2025-08-27.basil) and
 * signs a payload the way Stripe signs webhooks ({@code Stripe-Signature: t=...,v1=hex(HMAC-SHA256(secret,
 * "t.payload"))}). Amounts are passed as JSON text so tests can send 2500.9, "2500" or true.
 */
public final class StripeFixtures {

    public static final String SECRET = "whsec_test_orderflow_stripe";
    public static final String ROTATED_SECRET = "whsec_test_orderflow_stripe_rotated";
    public static final String API_KEY = "sk_test_orderflow";

    private StripeFixtures() {
    }

    public static String event(String type, String object) {
        return event("evt_" + UUID.randomUUID().toString().replace("-", ""), type, object);
    }

    public static String event(String id, String type, String object) {
        return "{\"id\":\"" + id + "\",\"object\":\"event\",\"api_version\":\"2025-08-27.basil\",\"created\":"
                + (System.currentTimeMillis() / 1000) + ",\"data\":{\"object\":" + object + "},\"livemode\":false,"
                + "\"pending_webhooks\":1,\"request\":{\"id\":null,\"idempotency_key\":null},\"type\":\"" + type
                + "\"}";
    }

    /** A PaymentIntent; {@code amountJson} stands for both amount and amount_received (JSON text). */
    public static String intent(String id, String status, String amountJson, String currency, String charge) {
        return "{\"id\":\"" + id + "\",\"object\":\"payment_intent\",\"amount\":" + amountJson
                + ",\"amount_received\":" + (status.equals("succeeded") ? amountJson : "0")
                + ",\"capture_method\":\"automatic\",\"client_secret\":\"" + id + "_secret_s3cr3t\","
                + "\"currency\":\"" + currency + "\",\"latest_charge\":" + (charge == null ? "null" : "\"" + charge
                        + "\"")
                + ",\"livemode\":false,\"metadata\":{\"order_id\":\"0193f0a0-0000-7000-8000-000000000001\","
                + "\"attempt_id\":\"0193f0a0-0000-7000-8000-000000000002\"},\"object_status\":null,\"status\":\""
                + status + "\"}";
    }

    public static String failedIntent(String id, String amountJson, String currency, String declineCode) {
        return "{\"id\":\"" + id + "\",\"object\":\"payment_intent\",\"amount\":" + amountJson
                + ",\"amount_received\":0,\"currency\":\"" + currency + "\",\"latest_charge\":\"ch_failed\","
                + "\"last_payment_error\":{\"charge\":\"ch_failed\",\"code\":\"card_declined\",\"decline_code\":\""
                + declineCode + "\",\"message\":\"Your card was declined.\",\"type\":\"card_error\"},"
                + "\"metadata\":{},\"status\":\"requires_payment_method\"}";
    }

    public static String charge(String id, String intent, String amountJson, String refundedJson, boolean full) {
        return "{\"id\":\"" + id + "\",\"object\":\"charge\",\"amount\":" + amountJson + ",\"amount_captured\":"
                + amountJson + ",\"amount_refunded\":" + refundedJson + ",\"captured\":true,\"currency\":\"eur\","
                + "\"paid\":true,\"payment_intent\":\"" + intent + "\",\"refunded\":" + full + ",\"status\":"
                + "\"succeeded\"}";
    }

    public static String refund(String id, String charge, String intent, String amountJson, String status,
            String commandId) {
        return "{\"id\":\"" + id + "\",\"object\":\"refund\",\"amount\":" + amountJson + ",\"charge\":\"" + charge
                + "\",\"created\":1735689600,\"currency\":\"eur\",\"metadata\":{\"command_id\":\"" + commandId
                + "\"},\"payment_intent\":\"" + intent + "\",\"reason\":null,\"status\":\"" + status + "\"}";
    }

    /** Stripe's error answer: {@code {"error": {type, code, message}}} with a Request-Id, as its API sends it. */
    public static ResponseDefinitionBuilder error(int status, String type,
            String code) {
        return WireMock.aResponse().withStatus(status)
                .withHeader("Content-Type", "application/json").withHeader("Request-Id", "req_" + UUID.randomUUID())
                .withBody("{\"error\":{\"type\":\"" + type + "\"" + (code == null ? "" : ",\"code\":\"" + code
                        + "\"") + ",\"message\":\"Simulated Stripe error\"}}");
    }

    public static String signature(String secret, long timestamp, String payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] signed = mac.doFinal((timestamp + "." + payload).getBytes(StandardCharsets.UTF_8));
            return "t=" + timestamp + ",v1=" + HexFormat.of().formatHex(signed);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
