package io.orderflow.payment.commands;

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
 * A row of {@code provider_commands} (V11, V25): a refund the service owes, or a pending payment it must cancel at
 * its provider. Written in the statement of the decision that owes it and claimed by the worker
 * ({@link ProviderCommands}); {@link ProviderCommands.Refund} and {@link ProviderCommands.Cancel} are its value forms.
 */
@Entity
@Table(name = "provider_commands")
@NamedQuery(name = ProviderCommandEntity.OF_ORDER,
        query = "from ProviderCommandEntity where orderId = :order and kind = 'REFUND' order by createdAt, id")
public class ProviderCommandEntity {

    /** Named, so that Hibernate parses it at boot and never on the event loop. */
    static final String OF_ORDER = "ProviderCommand.ofOrder";

    @Id
    public UUID id;

    /** REFUND (a capture given back) or CANCEL (a payment not captured, closed at its provider). */
    @Column(nullable = false, columnDefinition = "text")
    public String kind;

    @Column(name = "order_id", nullable = false)
    public UUID orderId;

    @Column(nullable = false, columnDefinition = "text")
    public String provider;

    @Column(name = "payment_reference", columnDefinition = "text")
    public String paymentReference;

    /** The capture a refund gives back; none for a cancel. */
    @Column(name = "capture_txn_id", columnDefinition = "text")
    public String captureTxnId;

    @Column(nullable = false)
    public long amount;

    @Column(nullable = false, length = 3)
    @JdbcTypeCode(SqlTypes.CHAR)
    public String currency;

    /** PENDING, SENT, DONE or FAILED. */
    @Column(nullable = false, columnDefinition = "text")
    public String state;

    @Column(nullable = false)
    public int tries;

    @Column(name = "next_at", nullable = false)
    public Instant nextAt;

    @Column(name = "refund_id", columnDefinition = "text")
    public String refundId;

    @Column(name = "last_outcome", columnDefinition = "text")
    public String lastOutcome;

    /** The token of the claim that last took the command; only that claim may settle it. */
    public UUID claim;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;

    ProviderCommands.Refund toRefund() {
        return new ProviderCommands.Refund(id, orderId, provider, paymentReference, captureTxnId, amount,
                currency.trim(), state, tries, refundId, createdAt, claim);
    }

    ProviderCommands.Cancel toCancel() {
        return new ProviderCommands.Cancel(id, orderId, provider, paymentReference, tries, claim);
    }
}
