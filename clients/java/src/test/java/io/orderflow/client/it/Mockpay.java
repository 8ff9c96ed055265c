package io.orderflow.client.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** The built-in mockpay provider reporting a payment, with a signed callback (docs/payments.md). */
final class Mockpay {

    private Mockpay() {
    }

    static void paymentSucceeded(URI base, String orderId, long amount, String currency) throws Exception {
        String event = "evt_" + UUID.randomUUID();
        String body = "{\"eventId\":\"" + event + "\",\"type\":\"PAYMENT_SUCCEEDED\",\"orderId\":\"" + orderId
                + "\",\"amount\":" + amount + ",\"currency\":\"" + currency + "\",\"providerTxnId\":\"txn_" + event
                + "\",\"occurredAt\":\"" + Instant.now() + "\"}";
        long t = Instant.now().getEpochSecond();
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(TheService.MOCKPAY_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        StringBuilder hex = new StringBuilder();
        for (byte b : mac.doFinal((t + "." + body).getBytes(StandardCharsets.UTF_8))) {
            hex.append(String.format("%02x", b));
        }
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                base.resolve("/payments/mockpay/callbacks")).header("Content-Type", "application/json")
                .header("Payment-Signature", "t=" + t + ",v1=" + hex).POST(HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200 || !answer.body().contains("\"applied\"")) {
            throw new IllegalStateException("mockpay's callback: " + answer.statusCode() + " " + answer.body());
        }
    }
}
