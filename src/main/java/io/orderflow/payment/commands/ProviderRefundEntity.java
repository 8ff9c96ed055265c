package io.orderflow.payment.commands;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.time.Instant;
import java.util.UUID;

/**
 * A row of {@code provider_refunds} (V21): a refund a provider told us about, once per provider refund id, with the
 * command whose capture it gives back (null when none of ours owes one).
 */
@Entity
@Table(name = "provider_refunds")
@IdClass(ProviderRefundEntity.Key.class)
public class ProviderRefundEntity {

    @Id
    @Column(columnDefinition = "text")
    public String provider;

    @Id
    @Column(name = "refund_id", columnDefinition = "text")
    public String refundId;

    @Column(name = "command_id")
    public UUID commandId;

    @Column(name = "capture_txn_id", nullable = false, columnDefinition = "text")
    public String captureTxnId;

    @Column(name = "seen_at", nullable = false)
    public Instant seenAt;

    public record Key(String provider, String refundId) implements Serializable {
    }
}
