package io.orderflow.payment.attempts;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.time.Instant;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/**
 * A row of {@code payment_captures} (V10): money a provider captured, one row per provider transaction. Written by
 * the statements that move orders ({@link PaymentWrites}) and by {@link PaymentCaptures}, which reads it.
 */
@Entity
@Table(name = "payment_captures")
@IdClass(PaymentCaptureEntity.Key.class)
@NamedQuery(name = PaymentCaptureEntity.REFUND, query = "update PaymentCaptureEntity set state = 'REFUNDED',"
        + " refundedAt = :at where provider = :provider and txnId = :txn and orderId = :order and amount = :amount"
        + " and currency = :currency")
public class PaymentCaptureEntity {

    /** Named, so that Hibernate parses it at boot and never on the event loop. */
    static final String REFUND = "PaymentCapture.refund";

    @Id
    @Column(columnDefinition = "text")
    public String provider;

    @Id
    @Column(name = "txn_id", columnDefinition = "text")
    public String txnId;

    @Column(name = "attempt_id")
    public UUID attemptId;

    @Column(name = "order_id", nullable = false)
    public UUID orderId;

    @Column(nullable = false)
    public long amount;

    @Column(nullable = false, length = 3)
    @JdbcTypeCode(SqlTypes.CHAR)
    public String currency;

    /** CAPTURED, REFUND_OWED or REFUNDED. */
    @Column(nullable = false, columnDefinition = "text")
    public String state;

    @Column(name = "captured_at", nullable = false)
    public Instant capturedAt;

    @Column(name = "refunded_at")
    public Instant refundedAt;

    /** What the capture's refunds PENDING or SUCCEEDED hold of its amount; the refund statement guards it (V23). */
    @Column(name = "refund_held", nullable = false)
    public long refundHeld;

    public record Key(String provider, String txnId) implements Serializable {
    }
}
