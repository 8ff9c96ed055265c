package io.orderflow.payment.wechatpay;

import com.fasterxml.jackson.databind.JsonNode;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.PaymentState;
import io.orderflow.payment.spi.ProviderJson;
import io.orderflow.payment.spi.ProviderOutcome;
import io.orderflow.payment.spi.RefundState;
import java.util.UUID;

/**
 * Reads WeChat Pay's transaction and refund objects (decrypted notification resources and query answers alike)
 * from their JSON, strictly: the SDK's Gson models would read {@code "total": "2500"} as 2500.
 */
final class WechatObjects {

    private WechatObjects() {
    }

    static Notification transactionNotification(String id, String type, JsonNode transaction, String merchantId) {
        String outTradeNo = ProviderJson.text(transaction.get("out_trade_no"), 32);
        if (outTradeNo == null) {
            return new Notification.Invalid(id, type, null, "The resource needs a valid out_trade_no");
        }
        Notification.Subject subject = new Notification.ByReference(outTradeNo);
        String problem = problem(transaction, merchantId);
        if (problem == null && !"SUCCESS".equals(transaction.path("trade_state").asText())) {
            problem = "trade_state SUCCESS";
        }
        if (problem != null) {
            return new Notification.Invalid(id, type, subject, "The resource needs a valid " + problem);
        }
        return new Notification.PaymentSucceeded(id, type, subject, transaction.get("transaction_id").asText(),
                ProviderJson.minorUnits(transaction.path("amount").get("total")),
                ProviderJson.currency(transaction.path("amount").get("currency")));
    }

    static Notification refundNotification(String id, String type, JsonNode refund, String merchantId) {
        String outTradeNo = ProviderJson.text(refund.get("out_trade_no"), 32);
        if (outTradeNo == null) {
            return new Notification.Invalid(id, type, null, "The resource needs a valid out_trade_no");
        }
        Notification.Subject subject = new Notification.ByReference(outTradeNo);
        String transactionId = ProviderJson.text(refund.get("transaction_id"), 64);
        String refundId = ProviderJson.text(refund.get("refund_id"), 64);
        Long amount = ProviderJson.minorUnits(refund.path("amount").get("refund"));
        String problem = !merchantId.equals(refund.path("mchid").asText()) ? "mchid (this merchant's)"
                : transactionId == null ? "transaction_id"
                : refundId == null ? "refund_id"
                : amount == null ? "amount.refund (an integer of fen)"
                : !"SUCCESS".equals(refund.path("refund_status").asText()) ? "refund_status SUCCESS"
                : null;
        if (problem != null) {
            return new Notification.Invalid(id, type, subject, "The resource needs a valid " + problem);
        }
        return new Notification.RefundSucceeded(id, type, subject, refundId, transactionId, amount, null,
                ourRefund(refund));
    }

    /** A refund WeChat Pay did not make (ABNORMAL: the account cannot take it; CLOSED): owed again. */
    static Notification refundFailure(String id, String type, JsonNode refund, String merchantId) {
        String outTradeNo = ProviderJson.text(refund.get("out_trade_no"), 32);
        if (outTradeNo == null || !merchantId.equals(refund.path("mchid").asText())) {
            return new Notification.Invalid(id, type, null, "The resource needs a valid out_trade_no and mchid");
        }
        String status = ProviderJson.text(refund.get("refund_status"), 32);
        return new Notification.RefundFailed(id, type, new Notification.ByReference(outTradeNo),
                ProviderJson.text(refund.get("refund_id"), 64), ourRefund(refund), status != null ? status : type);
    }

    /** The refund of ours WeChat's refund was made for: its {@code out_refund_no} is the refund id, compacted. */
    static UUID ourRefund(JsonNode refund) {
        String no = ProviderJson.text(refund.get("out_refund_no"), 32);
        if (no == null || !no.matches("[0-9a-f]{32}")) {
            return null;
        }
        return UUID.fromString(no.replaceFirst("(.{8})(.{4})(.{4})(.{4})(.{12})", "$1-$2-$3-$4-$5"));
    }

    /** A transaction from a query: paid, still payable, or closed for good (Kill Bill's terms). */
    static ProviderOutcome<PaymentState> transaction(JsonNode transaction, String merchantId) {
        String outTradeNo = ProviderJson.text(transaction.get("out_trade_no"), 32);
        String state = transaction.path("trade_state").asText("");
        switch (state) {
            case "SUCCESS": {
                String problem = problem(transaction, merchantId);
                if (problem != null) {
                    return ProviderOutcome.of(ProviderOutcome.Status.UNDEFINED, "invalid-object",
                            "WeChat Pay reported the payment paid without a valid " + problem);
                }
                return ProviderOutcome.processed(new PaymentState(outTradeNo,
                        transaction.get("transaction_id").asText(),
                        ProviderJson.minorUnits(transaction.path("amount").get("total")),
                        ProviderJson.currency(transaction.path("amount").get("currency")), null));
            }
            case "CLOSED", "REVOKED", "PAYERROR":
                return new ProviderOutcome<>(ProviderOutcome.Status.ERROR,
                        new PaymentState(outTradeNo, null, null, null, state), state,
                        "WeChat Pay reports the payment " + state);
            case "REFUND":
                return ProviderOutcome.of(ProviderOutcome.Status.UNDEFINED, state,
                        "WeChat Pay reports the payment paid and (partly) refunded; settle it from the notifications");
            default: // NOTPAY, USERPAYING
                return ProviderOutcome.pending(new PaymentState(outTradeNo, null, null, null, state));
        }
    }

    /** A refund from a create or a query: made, under way, or not made (CLOSED, ABNORMAL). */
    static ProviderOutcome<RefundState> refund(JsonNode refund) {
        RefundState state = new RefundState(ProviderJson.text(refund.get("refund_id"), 64),
                ProviderJson.text(refund.get("transaction_id"), 64),
                ProviderJson.minorUnits(refund.path("amount").get("refund")),
                ProviderJson.currency(refund.path("amount").get("currency")), null);
        String status = refund.path("status").asText("");
        RefundState failed = new RefundState(state.refundId(), state.captureId(), state.amount(), state.currency(),
                status);
        return switch (status) {
            case "SUCCESS" -> ProviderOutcome.processed(state);
            case "PROCESSING" -> ProviderOutcome.pending(state);
            case "ABNORMAL", "CLOSED" -> new ProviderOutcome<>(ProviderOutcome.Status.ERROR, failed, status,
                    "WeChat Pay did not make the refund (" + status + ")");
            default -> new ProviderOutcome<>(ProviderOutcome.Status.UNDEFINED, state, "unknown-status",
                    "WeChat Pay reported the refund " + status);
        };
    }

    /** What is wrong with a paid transaction's fields, or null. */
    private static String problem(JsonNode transaction, String merchantId) {
        return !merchantId.equals(transaction.path("mchid").asText()) ? "mchid (this merchant's)"
                : ProviderJson.text(transaction.get("transaction_id"), 64) == null ? "transaction_id"
                : ProviderJson.minorUnits(transaction.path("amount").get("total")) == null
                        ? "amount.total (an integer of fen)"
                : ProviderJson.currency(transaction.path("amount").get("currency")) == null ? "amount.currency"
                : null;
    }
}
