package io.orderflow.payment.wechatpay;

import static io.orderflow.payment.wechatpay.WechatFixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.wechat.pay.java.core.util.PemUtil;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.NotificationRejected;
import io.orderflow.payment.spi.NotificationRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** WeChat Pay's notifications, encrypted and signed as WeChat does with keys made here, through the adapter. */
class WechatNotificationsTest {

    private static final Instant NOW = Instant.parse("2026-01-15T10:00:00Z");
    private static final WechatFixtures WECHAT = WechatFixtures.createTemporary();
    private final WechatNotifications notifications = new WechatNotifications(
            PemUtil.loadPublicKeyFromPath(WECHAT.platformKeyFile().toString()), PLATFORM_KEY_ID, WECHAT.apiV3Key(),
            MERCHANT_ID, Duration.ofMinutes(5));

    private static NotificationRequest signed(String body, Instant at) {
        return request(body, WECHAT.headers(body, at.getEpochSecond()));
    }

    private static NotificationRequest request(String body, Map<String, String> headers) {
        return new NotificationRequest(headers, body.getBytes(StandardCharsets.UTF_8));
    }

    private static String paid(String id, String outTradeNo, String total) {
        return WECHAT.notification(id, "TRANSACTION.SUCCESS", "transaction",
                transaction(outTradeNo, "4200000001202601150000000001", "SUCCESS", total));
    }

    @Test
    void shouldDecryptAVerifiedTransactionSuccessIntoACaptureOfThatOutTradeNo() {
        Notification n = notifications.verify(signed(paid("EV-1", "a1b2c3", "2500"), NOW), NOW);
        assertEquals(new Notification.PaymentSucceeded("EV-1", "TRANSACTION.SUCCESS",
                new Notification.ByReference("a1b2c3"), "4200000001202601150000000001", 2500, "CNY"), n);
    }

    @Test
    void shouldMatchARefundSuccessToTheTransactionItGivesBack() {
        String body = WECHAT.notification("EV-2", "REFUND.SUCCESS", "refund",
                refund("a1b2c3", "4200000001", "r9f8e7", "50300000012026", "SUCCESS", "2500"));
        assertEquals(new Notification.RefundSucceeded("EV-2", "REFUND.SUCCESS", new Notification.ByReference("a1b2c3"),
                "50300000012026", "4200000001", 2500L, null), notifications.verify(signed(body, NOW), NOW));
    }

    @Test
    void shouldRefuseATamperedBodyAForeignKeyAndAWrongSerial() {
        String body = paid("EV-3", "a1b2c3", "2500");
        Map<String, String> headers = WECHAT.headers(body, NOW.getEpochSecond());
        assertRejected(ProblemType.SIGNATURE_INVALID,
                () -> notifications.verify(request(body.replace("EV-3", "EV-4"), headers), NOW));
        WechatFixtures stranger = WechatFixtures.createTemporary();
        assertRejected(ProblemType.SIGNATURE_INVALID,
                () -> notifications.verify(request(body, stranger.headers(body, NOW.getEpochSecond())), NOW));
        Map<String, String> otherSerial = new HashMap<>(headers);
        otherSerial.put("Wechatpay-Serial", "PUB_KEY_ID_OTHER");
        assertRejected(ProblemType.SIGNATURE_INVALID, () -> notifications.verify(request(body, otherSerial), NOW));
    }

    @Test
    void shouldRefuseAStaleOrReplayedNotificationWhichTheSdkWouldAccept() {
        String body = paid("EV-5", "a1b2c3", "2500");
        NotificationRequest old = signed(body, NOW.minusSeconds(301));
        assertRejected(ProblemType.SIGNATURE_INVALID, () -> notifications.verify(old, NOW));
        NotificationRequest captured = signed(body, NOW);
        assertRejected(ProblemType.SIGNATURE_INVALID, () -> notifications.verify(captured, NOW.plusSeconds(600)));
        assertRejected(ProblemType.SIGNATURE_INVALID, () -> notifications.verify(captured, NOW.minusSeconds(600)));
    }

    @Test
    void shouldRefuseANotificationWithoutTheSignatureHeaders() {
        String body = paid("EV-6", "a1b2c3", "2500");
        Map<String, String> headers = new HashMap<>(WECHAT.headers(body, NOW.getEpochSecond()));
        headers.remove("Wechatpay-Signature");
        assertRejected(ProblemType.SIGNATURE_MISSING, () -> notifications.verify(request(body, headers), NOW));
    }

    @Test
    void shouldAnswer503WhenAVerifiedResourceDoesNotDecryptWithOurApiV3Key() {
        WechatFixtures otherKey = WechatFixtures.createTemporary();
        String body = otherKey.notification("EV-7", "TRANSACTION.SUCCESS", "transaction",
                transaction("a1b2c3", "4200000001", "SUCCESS", "2500"));
        assertRejected(ProblemType.SERVICE_UNAVAILABLE, () -> notifications.verify(signed(body, NOW), NOW));
    }

    @ParameterizedTest
    @ValueSource(strings = { "!!", "=", "", "not base64 at all" })
    void shouldRefuseASignatureThatIsNoBase64AsInvalidNeverAsAKeyProblem(String signature) {
        String body = paid("EV-7a", "a1b2c3", "2500");
        Map<String, String> headers = new HashMap<>(WECHAT.headers(body, NOW.getEpochSecond()));
        headers.put("Wechatpay-Signature", signature);
        assertRejected(ProblemType.SIGNATURE_INVALID, () -> notifications.verify(request(body, headers), NOW));
    }

    @ParameterizedTest
    @ValueSource(strings = { "\"\"", "\"AAAA\"", "12345", "\"!!\"", "null", "{}" })
    void shouldMarkASignedNotificationWithAMalformedCiphertextInvalidNeverAKeyProblem(String ciphertext) {
        String body = withCiphertext(paid("EV-7b", "a1b2c3", "2500"), ciphertext);
        Notification.Invalid invalid = assertInstanceOf(Notification.Invalid.class,
                notifications.verify(signed(body, NOW), NOW));
        assertEquals("EV-7b", invalid.id());
        assertTrue(invalid.reason().contains("resource is malformed"), invalid.reason());
    }

    /** The body with its resource's ciphertext replaced by {@code json} (JSON text), then signed as sent. */
    static String withCiphertext(String body, String json) {
        return body.replaceFirst("\"ciphertext\":\"[^\"]*\"", "\"ciphertext\":" + json.replace("\\", "\\\\"));
    }

    @Test
    void shouldReadARefundWechatDidNotMakeAsAFailureOfTheRefundItsOutRefundNoNames() {
        UUID ours = UUID.randomUUID();
        String body = WECHAT.notification("EV-8", "REFUND.ABNORMAL", "refund",
                refund("a1b2c3", "4200000001", ours.toString().replace("-", ""), "5030", "ABNORMAL", "2500"));
        assertEquals(new Notification.RefundFailed("EV-8", "REFUND.ABNORMAL", new Notification.ByReference("a1b2c3"),
                "5030", ours, "ABNORMAL"), notifications.verify(signed(body, NOW), NOW));
    }

    @ParameterizedTest
    @ValueSource(strings = { "2500.9", "\"2500\"", "true", "-5", "null" })
    void shouldMarkAVerifiedPaymentWhoseTotalIsNotAnIntegerOfFenInvalid(String total) {
        Notification.Invalid invalid = assertInstanceOf(Notification.Invalid.class,
                notifications.verify(signed(paid("EV-9", "a1b2c3", total), NOW), NOW));
        assertEquals(new Notification.ByReference("a1b2c3"), invalid.subject());
        assertTrue(invalid.reason().contains("amount.total"), invalid.reason());
    }

    @Test
    void shouldMarkAVerifiedPaymentOfAnotherMerchantInvalid() {
        String body = WECHAT.notification("EV-10", "TRANSACTION.SUCCESS", "transaction",
                transaction("a1b2c3", "4200000001", "SUCCESS", "2500").replace(MERCHANT_ID, "1900000001"));
        assertInstanceOf(Notification.Invalid.class, notifications.verify(signed(body, NOW), NOW));
    }

    private static void assertRejected(ProblemType type, Executable call) {
        NotificationRejected rejected = assertThrows(NotificationRejected.class, call);
        assertEquals(type.uri(), rejected.problem().type());
    }
}
