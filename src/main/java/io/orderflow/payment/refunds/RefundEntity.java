package io.orderflow.payment.refunds;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/**
 * A row of {@code refunds} (V23): one refund asked for, PENDING until its provider says SUCCEEDED or FAILED. Written
 * by native statements ({@link Refunds}) and read with the named queries here; its JSON ({@code to_jsonb}) is the
 * row as an idempotency record keeps it.
 */
@Entity
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@Table(name = "refunds")
@NamedQuery(name = RefundEntity.OF_ORDER, query = "from RefundEntity where orderId = :order order by id")
@NamedQuery(name = RefundEntity.BY_PROVIDER_REFUND,
        query = "from RefundEntity where provider = :provider and providerRefundId = :refund")
@NamedQuery(name = RefundEntity.PAGE, query = "from RefundEntity where id > :after order by id")
@NamedQuery(name = RefundEntity.PAGE_BY_STATUS,
        query = "from RefundEntity where status = :status and id > :after order by id")
public class RefundEntity {

    /** Named, so that Hibernate parses them at boot and never on the event loop. */
    static final String OF_ORDER = "Refund.ofOrder";
    static final String PAGE = "Refund.page";
    static final String BY_PROVIDER_REFUND = "Refund.byProviderRefund";
    static final String PAGE_BY_STATUS = "Refund.pageByStatus";

    @Id
    public UUID id;

    @Column(name = "order_id", nullable = false)
    public UUID orderId;

    @Column(nullable = false, columnDefinition = "text")
    public String provider;

    @Column(name = "capture_txn_id", nullable = false, columnDefinition = "text")
    public String captureTxnId;

    @Column(nullable = false)
    public long amount;

    @Column(nullable = false, length = 3)
    @JdbcTypeCode(SqlTypes.CHAR)
    public String currency;

    @Column(columnDefinition = "text")
    public String reason;

    @Column(name = "issued_by", nullable = false, columnDefinition = "text")
    public String issuedBy;

    /** PENDING, SUCCEEDED or FAILED. */
    @Column(nullable = false, columnDefinition = "text")
    public String status;

    @Column(name = "provider_refund_id", columnDefinition = "text")
    public String providerRefundId;

    @Column(name = "failure_reason", columnDefinition = "text")
    public String failureReason;

    /** The version its success gave the order (it raised the refunded amount); null otherwise. */
    @Column(name = "order_version")
    public Long orderVersion;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;

    RefundView toView() {
        return new RefundView(id, orderId, amount, currency.trim(), reason, RefundView.Status.valueOf(status),
                issuedBy, provider, captureTxnId, providerRefundId, failureReason, createdAt, updatedAt);
    }
}
