package io.orderflow.idempotency;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import jakarta.persistence.Column;
import jakarta.persistence.ColumnResult;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.SqlResultSetMapping;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.time.Instant;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/**
 * A row of {@code idempotency_keys}, as Hibernate reads it and as the store-or-find statement returns it
 * ({@code to_jsonb} of the row; hence the snake_case names). {@link DedupRecord} is its value form.
 */
@Entity
@Table(name = "idempotency_keys")
@IdClass(IdempotencyKey.Key.class)
// a named mapping keeps the store-or-find statement's plan in Hibernate's plan cache (see OrderEntity)
@SqlResultSetMapping(name = IdempotencyKey.INSERTED_OR_WINNER, columns = {
        @ColumnResult(name = "inserted", type = Integer.class), @ColumnResult(name = "winner", type = String.class) })
@SqlResultSetMapping(name = IdempotencyKey.BATCH_INSERTED_OR_WINNER, columns = {
        @ColumnResult(name = "n", type = Integer.class), @ColumnResult(name = "inserted", type = Integer.class),
        @ColumnResult(name = "winner", type = String.class) })
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public class IdempotencyKey {

    /** The store-or-find statement's {@code inserted, winner}. */
    static final String INSERTED_OR_WINNER = "idempotency-inserted-or-winner";

    /** The same for many records: {@code n} (the record's place in the batch, from 1), {@code inserted, winner}. */
    static final String BATCH_INSERTED_OR_WINNER = "idempotency-batch-inserted-or-winner";

    @Id
    @Column(columnDefinition = "text")
    public String scope;

    @Id
    @Column(name = "idem_key", columnDefinition = "text")
    public String idemKey;

    @Column(nullable = false, columnDefinition = "text")
    public String tier;

    @Column(nullable = false, columnDefinition = "text")
    public String state;

    @Column(nullable = false, columnDefinition = "text")
    public String fingerprint;

    @Column(name = "order_id")
    public UUID orderId;

    /** The business row the request's write produced, for its operation to render. */
    @JdbcTypeCode(SqlTypes.JSON)
    public JsonNode result;

    /** A rendered answer, {@link ReplyCodec}'s encoding. */
    @JdbcTypeCode(SqlTypes.JSON)
    public JsonNode reply;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "expires_at", nullable = false)
    public Instant expiresAt;

    @Column(name = "expired_at")
    public Instant expiredAt;

    public record Key(String scope, String idemKey) implements Serializable {
    }
}
