package io.orderflow.payment.refunds;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.UUID;

/**
 * A refund as the API shows it: of capture {@code captureTxnId} at {@code provider}; {@code providerRefundId} and
 * {@code failureReason} once the provider said them.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RefundView(UUID id, UUID orderId, long amount, String currency, String reason, Status status,
        String issuedBy, String provider, String captureTxnId, String providerRefundId, String failureReason,
        Instant createdAt,
        Instant updatedAt) {

    public enum Status {
        PENDING,
        SUCCEEDED,
        FAILED
    }
}
