package io.orderflow.payment;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/** A provider notification that was not applied as sent; operators list these to owe refunds and chase errors. */
@Entity
@Table(name = "payment_anomalies")
@NamedQuery(name = PaymentAnomaly.PAGE, query = "from PaymentAnomaly where id > :after order by id")
public class PaymentAnomaly {

    /** Named, so that Hibernate parses it at boot and never on the event loop. */
    static final String PAGE = "PaymentAnomaly.page";

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

    @Column(nullable = false, columnDefinition = "text")
    public String provider;

    @Column(name = "event_id", nullable = false, columnDefinition = "text")
    public String eventId;

    @Column(name = "provider_txn_id", columnDefinition = "text")
    public String providerTxnId;

    @Column(nullable = false, columnDefinition = "text")
    public String kind;

    @Column(nullable = false, columnDefinition = "text")
    public String detail;

    @Column(nullable = false)
    public Instant at;
}
