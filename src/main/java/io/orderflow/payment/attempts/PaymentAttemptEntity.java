package io.orderflow.payment.attempts;

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
 * A row of {@code payment_attempts} (V10, V21), as Hibernate reads it. The rows are written by the statements that
 * move orders ({@link PaymentWrites}); {@link PaymentAttempt} is its value form.
 */
@Entity
@Table(name = "payment_attempts")
@NamedQuery(name = PaymentAttemptEntity.BY_REFERENCE,
        query = "from PaymentAttemptEntity where provider = :provider and reference = :reference")
@NamedQuery(name = PaymentAttemptEntity.OF_ORDER,
        query = "from PaymentAttemptEntity where orderId = :order order by createdAt, id")
@NamedQuery(name = PaymentAttemptEntity.STUCK, query = "from PaymentAttemptEntity where state = 'PENDING'"
        + " and createdAt < :before and id > :after order by id")
@NamedQuery(name = PaymentAttemptEntity.ANSWERED, query = "update PaymentAttemptEntity set lastAnswer = :answer,"
        + " lastAskedAt = :at where id = :id")
@NamedQuery(name = PaymentAttemptEntity.MARK_FAILED, query = "update PaymentAttemptEntity set state = 'FAILED',"
        + " updatedAt = :at where id = :id and state in ('PENDING', 'REPLACED')")
@NamedQuery(name = PaymentAttemptEntity.MARK_CANCELLED, query = "update PaymentAttemptEntity set state = 'CANCELLED',"
        + " updatedAt = :at where provider = :provider and reference = :reference and state = 'PENDING'")
public class PaymentAttemptEntity {

    /** Named, so that Hibernate parses them at boot and never on the event loop. */
    static final String BY_REFERENCE = "PaymentAttempt.byReference";
    static final String OF_ORDER = "PaymentAttempt.ofOrder";
    static final String MARK_FAILED = "PaymentAttempt.markFailed";
    static final String MARK_CANCELLED = "PaymentAttempt.markCancelled";
    static final String STUCK = "PaymentAttempt.stuck";
    static final String ANSWERED = "PaymentAttempt.answered";

    @Id
    public UUID id;

    @Column(name = "order_id", nullable = false)
    public UUID orderId;

    @Column(nullable = false, columnDefinition = "text")
    public String provider;

    @Column(columnDefinition = "text")
    public String reference;

    @Column(nullable = false)
    public long amount;

    @Column(nullable = false, length = 3)
    @JdbcTypeCode(SqlTypes.CHAR)
    public String currency;

    @Column(nullable = false, columnDefinition = "text")
    public String state;

    /** The attempt whose PAY replaced this one, when one did. */
    @Column(name = "replaced_by")
    public UUID replacedBy;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;

    /** What the janitor last heard about it (V29): {@code pending}, {@code no-answer}, ...; null until asked. */
    @Column(name = "last_answer", columnDefinition = "text")
    public String lastAnswer;

    @Column(name = "last_asked_at")
    public Instant lastAskedAt;

    PaymentAttempt toAttempt() {
        return new PaymentAttempt(id, orderId, provider, reference, amount, currency.trim(),
                PaymentAttempt.State.valueOf(state));
    }
}
