package io.orderflow.order.persistence;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.hibernate.annotations.JdbcType;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/**
 * A row of {@code orders}, as Hibernate reads it and as the write statements return it ({@code to_jsonb} of the
 * row, read with Jackson; hence the snake_case names). Mapped to the domain's {@code Order} by {@link OrderMapping}.
 */
@Entity
@Table(name = "orders")
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public class OrderEntity {

    @Id
    public UUID id;

    @Column(name = "customer_id", nullable = false, columnDefinition = "text")
    public String customerId;

    @Column(nullable = false, columnDefinition = "text")
    public String status;

    @Column(nullable = false)
    public long version;

    @Column(nullable = false, length = 3)
    @JdbcTypeCode(SqlTypes.CHAR)
    public String currency;

    @Column(nullable = false)
    public long amount;

    @Column(nullable = false)
    @JdbcType(JsonArrayJdbcType.class)
    public List<Item> items;

    @Column(name = "payment_provider", columnDefinition = "text")
    public String paymentProvider;

    @Column(name = "payment_txn_id", columnDefinition = "text")
    public String paymentTxnId;

    @Column(name = "paid_at")
    public Instant paidAt;

    @Column(name = "refunded_at")
    public Instant refundedAt;

    @Column(columnDefinition = "text")
    public String carrier;

    @Column(name = "tracking_number", columnDefinition = "text")
    public String trackingNumber;

    @Column(name = "shipped_at")
    public Instant shippedAt;

    @Column(name = "delivered_at")
    public Instant deliveredAt;

    @Column(name = "cancel_reason", columnDefinition = "text")
    public String cancelReason;

    @Column(name = "cancelled_at")
    public Instant cancelledAt;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;

    /** One line as stored in the {@code items} JSON array. */
    public record Item(String sku, int quantity, long unitPrice) {
    }
}
