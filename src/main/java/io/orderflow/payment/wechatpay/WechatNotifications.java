package io.orderflow.payment.wechatpay;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.gson.JsonObject;
import com.wechat.pay.java.core.exception.DecryptionException;
import com.wechat.pay.java.core.exception.MalformedMessageException;
import com.wechat.pay.java.core.exception.ValidationException;
import com.wechat.pay.java.core.notification.NotificationParser;
import com.wechat.pay.java.core.notification.RSAPublicKeyNotificationConfig;
import com.wechat.pay.java.core.notification.RequestParam;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.payment.Notification;
import io.orderflow.payment.NotificationRejected;
import io.orderflow.payment.NotificationRequest;
import io.orderflow.payment.StrictJson;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import org.jboss.logging.Logger;

/**
 * WeChat Pay's notifications: the signature (RSA-SHA256 with the platform public key over
 * {@code timestamp\nnonce\nbody\n}) verified and the AEAD_AES_256_GCM resource decrypted by wechatpay-java's
 * {@link NotificationParser}; the timestamp tolerance, which the SDK does not check, here. Handled:
 * {@code TRANSACTION.SUCCESS} and {@code REFUND.SUCCESS}; other types are ignored.
 */
final class WechatNotifications {

    private static final Logger LOG = Logger.getLogger(WechatNotifications.class);
    static final int MAX_ID = 255;

    private final NotificationParser parser;
    private final String merchantId;
    private final Duration tolerance;

    WechatNotifications(PublicKey platformKey, String platformKeyId, String apiV3Key, String merchantId,
            Duration tolerance) {
        this.parser = new NotificationParser(new RSAPublicKeyNotificationConfig.Builder().publicKey(platformKey)
                .publicKeyId(platformKeyId).apiV3Key(apiV3Key).build());
        this.merchantId = merchantId;
        this.tolerance = tolerance;
    }

    Notification verify(NotificationRequest request, Instant now) {
        String timestamp = request.header("Wechatpay-Timestamp");
        String nonce = request.header("Wechatpay-Nonce");
        String signature = request.header("Wechatpay-Signature");
        String serial = request.header("Wechatpay-Serial");
        if (timestamp == null || nonce == null || signature == null || serial == null) {
            throw new NotificationRejected(ProblemType.SIGNATURE_MISSING,
                    "Send Wechatpay-Timestamp, Wechatpay-Nonce, Wechatpay-Signature and Wechatpay-Serial");
        }
        checkFresh(timestamp, now);
        String body = request.bodyText();
        JsonObject resource = decrypt(new RequestParam.Builder().serialNumber(serial).nonce(nonce)
                .signature(signature).timestamp(timestamp).signType(request.header("Wechatpay-Signature-Type"))
                .body(body).build());
        // verified, so WeChat's word: one whose id or type is no safe text is recorded once under the body's
        // SHA-256 and acknowledged, never written as sent nor refused (WeChat would re-send it 15 times)
        JsonNode envelope = StrictJson.tree(body);
        String id = StrictJson.text(envelope.get("id"), MAX_ID);
        String type = StrictJson.text(envelope.get("event_type"), MAX_ID);
        if (!envelope.isObject() || id == null || type == null) {
            return new Notification.Invalid(request.keyOf(id), type == null ? "" : type, null,
                    envelope.isObject() ? "The notification needs a valid " + (id == null ? "id" : "event_type")
                            : "The body is not one JSON object (trailing bytes, a field sent twice, or no JSON)");
        }
        JsonNode plain = resource == null ? StrictJson.tree("null") : StrictJson.tree(resource.toString());
        return switch (type) {
            case "TRANSACTION.SUCCESS" -> WechatObjects.transactionNotification(id, type, plain, merchantId);
            case "REFUND.SUCCESS" -> WechatObjects.refundNotification(id, type, plain, merchantId);
            case "REFUND.ABNORMAL", "REFUND.CLOSED" -> WechatObjects.refundFailure(id, type, plain, merchantId);
            default -> new Notification.Ignored(id, type);
        };
    }

    /** A replayed notification carries its original, signed timestamp: past the tolerance it is refused. */
    private void checkFresh(String timestamp, Instant now) {
        long seconds;
        try {
            seconds = Long.parseLong(timestamp);
        } catch (NumberFormatException e) {
            throw new NotificationRejected(ProblemType.SIGNATURE_MISSING, "Wechatpay-Timestamp must be unix seconds");
        }
        if (Math.abs(now.getEpochSecond() - seconds) > tolerance.toSeconds()) {
            throw new NotificationRejected(ProblemType.SIGNATURE_INVALID,
                    "The notification's timestamp is outside the accepted tolerance");
        }
    }

    private JsonObject decrypt(RequestParam param) {
        try {
            return parser.parse(param, JsonObject.class);
        } catch (ValidationException e) {
            throw new NotificationRejected(ProblemType.SIGNATURE_INVALID,
                    "The Wechatpay-Signature does not verify with the platform public key");
        } catch (DecryptionException | IllegalArgumentException e) {
            // verified, so WeChat sent it: our APIv3 key is wrong. 5xx, so WeChat re-sends once it is fixed
            LOG.error("A verified WeChat Pay notification could not be decrypted: check payments.providers"
                    + ".wechatpay.api-v3-key");
            throw new NotificationRejected(ProblemType.SERVICE_UNAVAILABLE,
                    "The notification could not be decrypted; it will be accepted once it can");
        } catch (MalformedMessageException | com.google.gson.JsonParseException | NullPointerException e) {
            // verified but without a decryptable resource (the SDK meets a missing associated_data with an NPE)
            return null;
        }
    }
}
