package io.orderflow.payment.wechatpay;

import com.fasterxml.jackson.databind.JsonNode;
import com.wechat.pay.java.core.cipher.AeadCipher;
import com.wechat.pay.java.core.cipher.Verifier;
import com.wechat.pay.java.core.exception.DecryptionException;
import com.wechat.pay.java.core.notification.RSAPublicKeyNotificationConfig;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.NotificationRejected;
import io.orderflow.payment.spi.NotificationRequest;
import io.orderflow.payment.spi.ProviderJson;
import io.orderflow.payment.spi.SignedAt;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import org.jboss.logging.Logger;

/**
 * WeChat Pay's notifications: the signature (RSA-SHA256 with the platform public key over
 * {@code timestamp\nnonce\nbody\n}) verified and the AEAD_AES_256_GCM resource decrypted by wechatpay-java's
 * verifier and cipher, in two steps so that each failure is told apart: unverifiable (4xx, anyone can send it),
 * verified but malformed (an anomaly, acknowledged), verified and well-formed but failing the AEAD tag (our APIv3
 * key is wrong: the one alarm). The timestamp tolerance, which the SDK does not check, is here. Handled:
 * {@code TRANSACTION.SUCCESS} and {@code REFUND.SUCCESS}; other types are ignored.
 */
final class WechatNotifications {

    private static final Logger LOG = Logger.getLogger(WechatNotifications.class);
    static final int MAX_ID = 255;

    private static final String SIGN_TYPE = "WECHATPAY2-SHA256-RSA2048";

    private final Verifier verifier;
    private final AeadCipher cipher;
    private final String platformKeyId;
    private final String merchantId;
    private final Duration tolerance;

    WechatNotifications(PublicKey platformKey, String platformKeyId, String apiV3Key, String merchantId,
            Duration tolerance) {
        RSAPublicKeyNotificationConfig config = new RSAPublicKeyNotificationConfig.Builder().publicKey(platformKey)
                .publicKeyId(platformKeyId).apiV3Key(apiV3Key).build();
        this.verifier = config.createVerifier();
        this.cipher = config.createAeadCipher();
        this.platformKeyId = platformKeyId;
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
        verifySignature(serial, timestamp + "\n" + nonce + "\n" + body + "\n", signature,
                request.header("Wechatpay-Signature-Type"));
        // verified, so WeChat's word: one whose id or type is no safe text is recorded once under the body's
        // SHA-256 and acknowledged, never written as sent nor refused (WeChat would re-send it 15 times)
        JsonNode envelope = ProviderJson.tree(body);
        String id = ProviderJson.text(envelope.get("id"), MAX_ID);
        String type = ProviderJson.text(envelope.get("event_type"), MAX_ID);
        if (!envelope.isObject() || id == null || type == null) {
            return new Notification.Invalid(request.keyOf(id), type == null ? "" : type, null,
                    envelope.isObject() ? "The notification needs a valid " + (id == null ? "id" : "event_type")
                            : "The body is not one JSON object (trailing bytes, a field sent twice, or no JSON)");
        }
        EncryptedResource resource = EncryptedResource.of(envelope.get("resource"));
        if (resource == null) {
            // signed by WeChat yet no resource AES-GCM could open: no key problem, and re-sending cannot mend it
            return new Notification.Invalid(id, type, null, "The resource is malformed: " + EncryptedResource.SHAPE);
        }
        JsonNode plain = ProviderJson.tree(decrypt(resource));
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
        SignedAt.requireWithin(seconds, now, tolerance);
    }

    /**
     * Verified before anything else is read, and every way of failing it is the same 4xx: a signature that is no
     * base64 ({@code !!}, {@code =}) is no proof of anything, whoever sent it, so it must not reach the
     * "verified but undecryptable" alarm below.
     */
    private void verifySignature(String serial, String message, String signature, String signType) {
        boolean verified;
        try {
            verified = (signType == null || signType.equals(SIGN_TYPE)) && serial.equals(platformKeyId)
                    && Base64.getDecoder().decode(signature).length > 0
                    && verifier.verify(serial, message, signature);
        } catch (IllegalArgumentException notBase64) {
            verified = false;
        }
        if (!verified) {
            throw new NotificationRejected(ProblemType.SIGNATURE_INVALID,
                    "The Wechatpay-Signature does not verify with the platform public key");
        }
    }

    /** Only a well-formed resource of a verified notification gets here: a failing AEAD tag means our key is wrong. */
    private String decrypt(EncryptedResource resource) {
        try {
            return cipher.decrypt(resource.associatedData(), resource.nonce(), resource.ciphertext());
        } catch (DecryptionException | IllegalArgumentException e) {
            // verified, so WeChat sent it: our APIv3 key is wrong. 5xx, so WeChat re-sends once it is fixed
            LOG.error("A verified WeChat Pay notification could not be decrypted: check payments.providers"
                    + ".wechatpay.api-v3-key");
            throw new NotificationRejected(ProblemType.SERVICE_UNAVAILABLE,
                    "The notification could not be decrypted; it will be accepted once it can");
        }
    }
}
