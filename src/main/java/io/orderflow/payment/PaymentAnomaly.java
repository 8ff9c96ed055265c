package io.orderflow.payment;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/** A provider notification that was not applied as sent; operators list these to owe refunds and chase errors. */
@Entity
@Table(name = "payment_anomalies")
public class PaymentAnomaly extends PanacheEntityBase {

    public enum Kind {
        AMOUNT_MISMATCH("amount-mismatch"),
        DOUBLE_CAPTURE("double-capture"),
        STALE_EVENT("stale-event"),
        INVALID_EVENT("invalid-event"),
        UNKNOWN_ORDER("unknown-order");

        public final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(name = "order_id")
    public UUID orderId;

    public String provider;

    @Column(name = "event_id")
    public String eventId;

    @Column(name = "provider_txn_id")
    public String providerTxnId;

    public String kind;

    public String detail;

    public Instant at;
}
