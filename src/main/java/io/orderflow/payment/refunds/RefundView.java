package io.orderflow.payment.refunds;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.UUID;

/**
 * A refund as the API shows it: of capture {@code captureTxnId} at {@code provider}; {@code providerRefundId} and
 * {@code failureReason} once the provider said them. The order's customer sees only what is theirs
 * ({@link #forCustomer()}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RefundView(UUID id, UUID orderId, long amount, String currency, String reason, Status status,
        String issuedBy, String provider, String captureTxnId, String providerRefundId, String failureReason,
        Instant createdAt,
        Instant updatedAt) {

    /**
     * What the order's customer is shown: the refund's amount, status and times, and the provider that gives it back;
     * not who issued it and why (an operator's note), nor the provider's transaction, refund ids and failure reason.
     */
    public RefundView forCustomer() {
        return new RefundView(id, orderId, amount, currency, null, status, null, provider, null, null, null, createdAt,
                updatedAt);
    }

    public enum Status {
        PENDING,
        SUCCEEDED,
        FAILED
    }
}
