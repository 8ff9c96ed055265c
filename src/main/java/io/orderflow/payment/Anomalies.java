package io.orderflow.payment;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.Db;
import io.orderflow.common.Times;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.panache.common.Sort;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * Records and lists payment anomalies. A record is written once per (provider, event, kind) however often the
 * provider re-sends, and counted in {@code orderflow_payments_anomalies_total{kind}}.
 */
@ApplicationScoped
public class Anomalies {

    private final Db db;
    private final Times times;
    private final MeterRegistry registry;

    public Anomalies(Db db, Times times, MeterRegistry registry) {
        this.db = db;
        this.times = times;
        this.registry = registry;
    }

    public Uni<Void> record(String provider, ProviderEvent event, PaymentAnomaly.Kind kind, String detail) {
        return db.execute("insert into payment_anomalies (order_id, provider, event_id, provider_txn_id, kind, detail,"
                + " at) values ($1, $2, $3, $4, $5, $6, $7) on conflict (provider, event_id, kind) do nothing",
                Tuple.from(List.of(event.order(), provider, event.eventId(), event.providerTxnId(), kind.label, detail,
                        Db.ts(times.now()))))
                .invoke(rows -> {
                    if (rows.rowCount() == 1) {
                        registry.counter("orderflow.payments.anomalies", "kind", kind.label).increment();
                    }
                })
                .replaceWithVoid();
    }

    /**
     * A signed event that could not be read as a valid notification: recorded once per body ({@code eventKey} is
     * its event id when that was readable, else a hash of the body), never applied.
     */
    public Uni<Void> recordInvalid(String provider, java.util.UUID orderId, String eventKey, String detail) {
        return db.execute("insert into payment_anomalies (order_id, provider, event_id, kind, detail, at)"
                + " values ($1, $2, $3, $4, $5, $6) on conflict (provider, event_id, kind) do nothing",
                Tuple.from(java.util.Arrays.asList(orderId, provider, eventKey, PaymentAnomaly.Kind.INVALID_EVENT.label,
                        detail, Db.ts(times.now()))))
                .invoke(rows -> {
                    if (rows.rowCount() == 1) {
                        registry.counter("orderflow.payments.anomalies", "kind", PaymentAnomaly.Kind.INVALID_EVENT.label)
                                .increment();
                    }
                })
                .replaceWithVoid();
    }

    /** Oldest first, {@code limit} at a time after the anomaly with id {@code after}. */
    public Uni<List<PaymentAnomaly>> page(long after, int limit) {
        return Panache.withSession(() -> PaymentAnomaly.<PaymentAnomaly>find("id > ?1", Sort.by("id"), after)
                .page(0, limit).list());
    }
}
