package io.orderflow.order.persistence;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import jakarta.persistence.Column;
import jakarta.persistence.ColumnResult;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.SqlResultSetMapping;
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
 *
 * <p>The write statements' results are read through named mappings: Hibernate keeps the plan of a native query with
 * a named mapping in its query plan cache, while one with an implicit mapping was planned (its SQL parsed again) on
 * every execution.
 */
@Entity
@Table(name = "orders")
@SqlResultSetMapping(name = OrderEntity.ROW, columns = @ColumnResult(name = "row", type = String.class))
@SqlResultSetMapping(name = OrderEntity.TRANSITION_OUTCOME, columns = {
        @ColumnResult(name = "moved", type = Boolean.class), @ColumnResult(name = "row", type = String.class),
        @ColumnResult(name = "history", type = String.class) })
@SqlResultSetMapping(name = OrderEntity.TRANSITION_BATCH_OUTCOME, columns = {
        @ColumnResult(name = "id", type = String.class), @ColumnResult(name = "moved", type = Boolean.class),
        @ColumnResult(name = "row", type = String.class), @ColumnResult(name = "history", type = String.class) })
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public class OrderEntity {

    /** A statement's single {@code row} column: the JSON of an orders row. */
    static final String ROW = "order-row";

    /** The transition statement's {@code moved, row, history}. */
    static final String TRANSITION_OUTCOME = "order-transition-outcome";

    /** The batch transition statement's {@code id, moved, row, history}, one row per order of the batch. */
    static final String TRANSITION_BATCH_OUTCOME = "order-transition-batch-outcome";

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

    @Column(name = "payment_attempt_id")
    public UUID paymentAttemptId;

    @Column(name = "paid_at")
    public Instant paidAt;

    @Column(name = "refunded_at")
    public Instant refundedAt;

    @Column(name = "refunded_amount", nullable = false)
    public long refundedAmount;

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
