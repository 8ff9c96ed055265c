package io.orderflow.payment.anomalies;

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
@NamedQuery(name = PaymentAnomaly.PAGE_UNRESOLVED,
        query = "from PaymentAnomaly where id > :after and resolvedAt is null order by id")
@NamedQuery(name = PaymentAnomaly.PAGE_RESOLVED,
        query = "from PaymentAnomaly where id > :after and resolvedAt is not null order by id")
public class PaymentAnomaly {

    /** Named, so that Hibernate parses them at boot and never on the event loop. */
    static final String PAGE = "PaymentAnomaly.page";
    static final String PAGE_UNRESOLVED = "PaymentAnomaly.pageUnresolved";
    static final String PAGE_RESOLVED = "PaymentAnomaly.pageResolved";

    public enum Kind {
        AMOUNT_MISMATCH("amount-mismatch"),
        DOUBLE_CAPTURE("double-capture"),
        /** Verified, but a field was unusable (an amount that is not an integer of minor units...). */
        INVALID_EVENT("invalid-event"),
        STALE_EVENT("stale-event"),
        UNKNOWN_ORDER("unknown-order"),
        /** No attempt has the provider's reference (or the event's attemptId is not one of its order's). */
        UNKNOWN_ATTEMPT("unknown-attempt"),
        /** A capture whose transaction id already belongs to another order: refused. */
        TXN_REUSED("txn-reused"),
        /** A refund of a transaction no capture of the order has. */
        UNKNOWN_CAPTURE("unknown-capture"),
        /** An event id the provider used before, now with other content: the first content stands. */
        EVENT_REUSED("event-reused"),
        /** Money a provider gave back that no refund of ours accounts for (a second provider refund for one). */
        UNACCOUNTED_REFUND("unaccounted-refund"),
        /**
         * A refund report naming a refund of ours with another order, capture, amount or currency: not applied, the
         * refund not settled by it.
         */
        REFUND_MISMATCH("refund-mismatch");

        public final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    /** None when the event named no order we could find (V10, V20 dropped NOT NULL). */
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

    /** Who dealt with it (a token's subject), what they noted and when (V29); null while it waits for someone. */
    @Column(name = "resolved_by", columnDefinition = "text")
    public String resolvedBy;

    @Column(name = "resolution_note", columnDefinition = "text")
    public String resolutionNote;

    @Column(name = "resolved_at")
    public Instant resolvedAt;
}
