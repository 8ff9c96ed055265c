package io.orderflow.webhooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Our signatures against the Standard Webhooks library's own signing and verification. */
class WebhookSignaturesTest {

    private static final String BODY = "{\"specversion\":\"1.0\",\"id\":\"e-1\",\"type\":\"io.orderflow.order.ship\"}";

    @Test
    void shouldSignAsTheStandardWebhooksLibraryDoes() throws Exception {
        String secret = WebhookSecrets.generate();
        long now = System.currentTimeMillis() / 1000;
        assertEquals(new Webhook(secret).sign("msg_1", now, BODY),
                WebhookSignatures.header("msg_1", now, BODY, List.of(secret)));
    }

    @Test
    void shouldBeVerifiedWithEitherSecretDuringARotation() throws Exception {
        String fresh = WebhookSecrets.generate();
        String old = WebhookSecrets.generate();
        long now = System.currentTimeMillis() / 1000;
        Map<String, List<String>> headers = Map.of("webhook-id", List.of("msg_2"), "webhook-timestamp",
                List.of(Long.toString(now)), "webhook-signature",
                List.of(WebhookSignatures.header("msg_2", now, BODY, List.of(fresh, old))));
        new Webhook(fresh).verify(BODY, headers);
        new Webhook(old).verify(BODY, headers);
        assertThrows(WebhookVerificationException.class,
                () -> new Webhook(WebhookSecrets.generate()).verify(BODY, headers));
        assertThrows(WebhookVerificationException.class, () -> new Webhook(fresh).verify(BODY + " ", headers));
    }

    @Test
    void shouldMakeSecretsOf32RandomBytes() {
        String secret = WebhookSecrets.generate();
        assertTrue(secret.startsWith("whsec_"));
        assertEquals(32, WebhookSecrets.key(secret).length);
        assertTrue(!secret.equals(WebhookSecrets.generate()));
    }

    @Test
    void shouldRetryFirstWithinTenSecondsThenBackOffUpToTheCap() {
        RetrySchedule slowest = new RetrySchedule(Duration.ofSeconds(5), Duration.ofHours(6), () -> 1.0);
        RetrySchedule quickest = new RetrySchedule(Duration.ofSeconds(5), Duration.ofHours(6), () -> 0.0);
        assertTrue(slowest.after(1).compareTo(Duration.ofSeconds(10)) <= 0);
        assertEquals(Duration.ofMillis(2500), quickest.after(1));
        assertEquals(Duration.ofSeconds(15), slowest.after(2));
        assertEquals(Duration.ofHours(6), slowest.after(40));
        Duration total = Duration.ZERO;
        int attempts = 1;
        while (total.compareTo(Duration.ofDays(3)) < 0) {
            total = total.plus(quickest.after(attempts++));
        }
        assertTrue(attempts > 10 && attempts < 40, "three days hold " + attempts + " attempts");
    }
}
