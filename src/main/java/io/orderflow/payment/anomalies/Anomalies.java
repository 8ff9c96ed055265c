package io.orderflow.payment.anomalies;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.Db;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.ResendSafety;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Records and lists payment anomalies. A record is written once per (provider, event, kind) however often the
 * provider re-sends, and counted in {@code orderflow_payments_anomalies_total{kind}}.
 */
@ApplicationScoped
public class Anomalies {

    private final Db db;
    private final MicrosecondClock time;
    private final MeterRegistry registry;

    public Anomalies(Db db, MicrosecondClock time, MeterRegistry registry) {
        this.db = db;
        this.time = time;
        this.registry = registry;
    }

    public Uni<Void> record(String provider, String eventId, UUID orderId, String providerTxnId,
            PaymentAnomaly.Kind kind, String detail) {
        return db.run(session -> session.createNativeQuery("insert into payment_anomalies (order_id, provider,"
                + " event_id, provider_txn_id, kind, detail, at) values (cast(:order as uuid), :provider, :event,"
                + " cast(:txn as text), :kind, :detail, cast(:at as timestamptz))"
                + " on conflict (provider, event_id, kind) do nothing")
                .setParameter("order", orderId).setParameter("provider", provider)
                .setParameter("event", eventId).setParameter("txn", providerTxnId)
                .setParameter("kind", kind.label).setParameter("detail", detail).setParameter("at", time.now())
                .executeUpdate())
                .invoke(inserted -> {
                    if (inserted == 1) {
                        registry.counter("orderflow.payments.anomalies", "kind", kind.label).increment();
                    }
                })
                .replaceWithVoid();
    }

    /**
     * Oldest first, {@code limit} at a time after the anomaly with id {@code after}; only the resolved ones, or only
     * those still waiting for someone (the on-call queue), unless {@code resolved} is null.
     */
    public Uni<List<PaymentAnomaly>> page(Boolean resolved, long after, int limit) {
        String query = resolved == null ? PaymentAnomaly.PAGE
                : resolved ? PaymentAnomaly.PAGE_RESOLVED : PaymentAnomaly.PAGE_UNRESOLVED;
        return db.run(ResendSafety.READ, session -> session.createNamedQuery(query, PaymentAnomaly.class)
                .setParameter("after", after).setMaxResults(limit).getResultList());
    }

    /**
     * Records that {@code by} dealt with anomaly {@code id}, once: the first resolution stands, and a later one gets
     * it back unchanged. Null when there is no such anomaly. A second resolution racing the first waits for its row
     * lock, then changes nothing and reads the first, committed by then. Safe to re-send for the same reason.
     */
    public Uni<PaymentAnomaly> resolve(long id, String by, String note, Instant at) {
        return db.run(ResendSafety.GUARDED, session -> session.createNativeQuery("update payment_anomalies set"
                        + " resolved_by = :by, resolution_note = :note, resolved_at = cast(:at as timestamptz)"
                        + " where id = :id and resolved_at is null returning *", PaymentAnomaly.class)
                .setParameter("id", id).setParameter("by", by).setParameter("note", note).setParameter("at", at)
                .getSingleResultOrNull()
                .chain(resolved -> resolved != null ? Uni.createFrom().item(resolved)
                        : session.get(PaymentAnomaly.class, id)));
    }
}
