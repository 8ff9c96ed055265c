package io.orderflow.payment.stripe;

import static io.orderflow.payment.stripe.StripeFixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.common.problem.ProblemType;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.NotificationRejected;
import io.orderflow.payment.spi.NotificationRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Stripe's webhooks, built and signed as Stripe does, through the adapter's verification and parsing. */
class StripeWebhooksTest {

    private static final Instant NOW = Instant.parse("2026-01-15T10:00:00Z");
    private final StripeWebhooks webhooks = new StripeWebhooks(List.of(SECRET, ROTATED_SECRET), Duration.ofMinutes(5));

    private static NotificationRequest signed(String payload, String secret, Instant at) {
        return request(payload, signature(secret, at.getEpochSecond(), payload));
    }

    private static NotificationRequest request(String payload, String header) {
        return new NotificationRequest(header == null ? Map.of() : Map.of("stripe-signature", header),
                payload.getBytes(StandardCharsets.UTF_8));
    }

    private Notification verify(String payload) {
        return webhooks.verify(signed(payload, SECRET, NOW), NOW);
    }

    @Test
    void shouldTurnASignedPaymentIntentSucceededIntoACaptureOfThatIntent() {
        Notification n = verify(event("evt_1", "payment_intent.succeeded",
                intent("pi_1", "succeeded", "2500", "eur", "ch_1")));
        assertEquals(new Notification.PaymentSucceeded("evt_1", "payment_intent.succeeded",
                new Notification.ByReference("pi_1"), "ch_1", 2500, "EUR"), n);
    }

    @Test
    void shouldAcceptAnEventSignedWithEitherSecretWhileRotating() {
        String payload = event("payment_intent.succeeded", intent("pi_2", "succeeded", "2500", "eur", "ch_2"));
        assertInstanceOf(Notification.PaymentSucceeded.class, webhooks.verify(signed(payload, ROTATED_SECRET, NOW),
                NOW));
        String both = signature("whsec_revoked", NOW.getEpochSecond(), payload) + ",v1="
                + signature(SECRET, NOW.getEpochSecond(), payload).split("v1=")[1];
        assertInstanceOf(Notification.PaymentSucceeded.class, webhooks.verify(request(payload, both), NOW));
    }

    @Test
    void shouldRefuseATamperedPayloadAnUnknownSecretAndAStaleOrReplayedDelivery() {
        String payload = event("payment_intent.succeeded", intent("pi_3", "succeeded", "2500", "eur", "ch_3"));
        String header = signature(SECRET, NOW.getEpochSecond(), payload);
        String tampered = payload.replace("\"amount_received\":2500", "\"amount_received\":1");
        assertRejected(ProblemType.SIGNATURE_INVALID, () -> webhooks.verify(request(tampered, header), NOW));
        assertRejected(ProblemType.SIGNATURE_INVALID, () -> webhooks.verify(signed(payload, "whsec_other", NOW), NOW));
        assertRejected(ProblemType.SIGNATURE_INVALID,
                () -> webhooks.verify(signed(payload, SECRET, NOW.minusSeconds(301)), NOW));
        // the same delivery, captured and replayed ten minutes later
        assertRejected(ProblemType.SIGNATURE_INVALID,
                () -> webhooks.verify(request(payload, header), NOW.plusSeconds(600)));
    }

    @ParameterizedTest
    @ValueSource(longs = { 301, 1_000_000, Long.MAX_VALUE / 2 })
    void shouldRefuseADeliverySignedFurtherInTheFutureThanTheTolerance(long ahead) {
        String payload = event("payment_intent.succeeded", intent("pi_5", "succeeded", "2500", "eur", "ch_5"));
        assertRejected(ProblemType.SIGNATURE_INVALID, () -> webhooks.verify(request(payload,
                signature(SECRET, NOW.getEpochSecond() + ahead, payload)), NOW));
        assertInstanceOf(Notification.PaymentSucceeded.class, webhooks.verify(request(payload,
                signature(SECRET, NOW.getEpochSecond() + 299, payload)), NOW));
    }

    @Test
    void shouldRefuseAMissingOrGarbledHeaderAndABodyThatIsNoEvent() {
        String payload = event("payment_intent.succeeded", intent("pi_4", "succeeded", "2500", "eur", "ch_4"));
        assertRejected(ProblemType.SIGNATURE_MISSING, () -> webhooks.verify(request(payload, null), NOW));
        assertRejected(ProblemType.SIGNATURE_INVALID, () -> webhooks.verify(request(payload, "v1=abc"), NOW));
        assertRejected(ProblemType.SIGNATURE_MISSING, () -> webhooks.verify(request(payload, "t=soon,v1=ab"), NOW));
    }

    @Test
    void shouldMarkASignedPayloadThatIsNoEventInvalidUnderItsSha256() {
        // verified before it is read: what Stripe signed is Stripe's word, acknowledged and recorded, not refused
        Notification.Invalid invalid = assertInstanceOf(Notification.Invalid.class, verify("not json"));
        assertEquals(NotificationRequest.keyOf(null, "not json".getBytes(StandardCharsets.UTF_8)), invalid.id());
        assertTrue(invalid.id().matches("sha256:[0-9a-f]{64}"), invalid.id());
        Notification.Invalid noId = assertInstanceOf(Notification.Invalid.class, verify("{\"id\":\"evt_\\u0000\","
                + "\"type\":\"payment_intent.succeeded\",\"data\":{\"object\":{}}}"));
        assertTrue(noId.id().startsWith("sha256:"), noId.id());
    }

    @Test
    void shouldIgnoreEventTypesOrderflowDoesNotActOn() {
        Notification n = verify(event("evt_5", "customer.created", "{\"id\":\"cus_1\",\"object\":\"customer\"}"));
        assertEquals(new Notification.Ignored("evt_5", "customer.created"), n);
        assertInstanceOf(Notification.Ignored.class, verify(event("refund.updated",
                refund("re_1", "ch_1", "pi_1", "2500", "pending", "c"))));
    }

    @ParameterizedTest
    @ValueSource(strings = { "2500.9", "\"2500\"", "true", "-1", "null", "2.5e3" })
    void shouldMarkAVerifiedSuccessWhoseAmountIsNotAnIntegerOfMinorUnitsInvalid(String amount) {
        Notification n = verify(event("payment_intent.succeeded", intent("pi_6", "succeeded", amount, "eur",
                "ch_6")));
        Notification.Invalid invalid = assertInstanceOf(Notification.Invalid.class, n);
        assertEquals(new Notification.ByReference("pi_6"), invalid.subject());
        assertTrue(invalid.reason().contains("amount_received"), invalid.reason());
    }

    @ParameterizedTest
    @ValueSource(strings = { "2500.9", "\"2500\"", "true" })
    void shouldMarkVerifiedRefundsAndFailuresWithBadAmountsInvalid(String amount) {
        assertInstanceOf(Notification.Invalid.class, verify(event("refund.updated",
                refund("re_2", "ch_2", "pi_2", amount, "succeeded", "c"))));
        assertInstanceOf(Notification.Invalid.class, verify(event("charge.refunded",
                charge("ch_2", "pi_2", "2500", amount, true))));
        assertInstanceOf(Notification.Invalid.class, verify(event("payment_intent.payment_failed",
                failedIntent("pi_2", amount, "eur", "insufficient_funds"))));
    }

    @Test
    void shouldTurnAFailedPaymentIntoAFailureOfThatIntentWithTheDeclineCode() {
        Notification n = verify(event("evt_7", "payment_intent.payment_failed",
                failedIntent("pi_7", "2500", "eur", "insufficient_funds")));
        assertEquals(new Notification.PaymentFailed("evt_7", "payment_intent.payment_failed",
                new Notification.ByReference("pi_7"), "ch_failed", 2500L, "EUR", "insufficient_funds"), n);
    }

    @Test
    void shouldMatchRefundsToTheChargeTheyGiveBack() {
        assertEquals(new Notification.RefundSucceeded("evt_8", "charge.refunded", new Notification.ByReference("pi_8"),
                null, "ch_8", 2500L, "EUR"), verify(event("evt_8", "charge.refunded",
                        charge("ch_8", "pi_8", "2500", "2500", true))));
        assertEquals(new Notification.RefundSucceeded("evt_9", "refund.updated", new Notification.ByReference("pi_8"),
                "re_9", "ch_8", 2500L, "EUR"), verify(event("evt_9", "refund.updated",
                        refund("re_9", "ch_8", "pi_8", "2500", "succeeded", "c"))));
    }

    @Test
    void shouldNameTheRefundOfOursItsMetadataNamesAndReadEveryRefundStatus() {
        UUID ours = UUID.randomUUID();
        assertEquals(new Notification.RefundSucceeded("evt_10", "refund.updated", new Notification.ByReference("pi_8"),
                "re_10", "ch_8", 1500L, "EUR", ours), verify(event("evt_10", "refund.updated",
                        refund("re_10", "ch_8", "pi_8", "1500", "succeeded", ours.toString()))));
        assertEquals(new Notification.RefundFailed("evt_11", "refund.failed", new Notification.ByReference("pi_8"),
                "re_11", ours, "expired_or_canceled_card"), verify(event("evt_11", "refund.failed",
                        refund("re_11", "ch_8", "pi_8", "1500", "failed", ours.toString())
                                .replace("\"reason\":null", "\"failure_reason\":\"expired_or_canceled_card\""))));
        assertEquals(new Notification.RefundFailed("evt_12", "refund.updated", new Notification.ByReference("pi_8"),
                "re_12", ours, "canceled"), verify(event("evt_12", "refund.updated",
                        refund("re_12", "ch_8", "pi_8", "1500", "canceled", ours.toString()))));
        for (String underWay : List.of("pending", "requires_action")) {
            assertEquals(new Notification.Ignored("evt_13", "refund.updated (" + underWay + ")"), verify(event("evt_13",
                    "refund.updated", refund("re_13", "ch_8", "pi_8", "1500", underWay, ours.toString()))));
        }
    }

    @Test
    void shouldRecordAPartialRefundMadeOutsideOrderflowAsInvalid() {
        Notification.Invalid invalid = assertInstanceOf(Notification.Invalid.class, verify(event("charge.refunded",
                charge("ch_10", "pi_10", "2500", "1000", false))));
        assertTrue(invalid.reason().contains("in part"), invalid.reason());
    }

    private static void assertRejected(ProblemType type, Executable call) {
        NotificationRejected rejected = assertThrows(NotificationRejected.class, call);
        assertEquals(type.uri(), rejected.problem().type());
    }
}
