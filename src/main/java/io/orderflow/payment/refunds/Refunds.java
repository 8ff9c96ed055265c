package io.orderflow.payment.refunds;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.orderflow.common.Db;
import io.orderflow.common.ResendSafety;
import io.orderflow.common.SameStatementWrite;
import io.orderflow.common.json.PgTimestamps;
import io.orderflow.events.RefundEvents;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Refunds in PostgreSQL ({@code refunds}, {@link RefundEntity}). A refund is recorded by the statement that decides
 * it fits: it raises its capture's {@code refund_held} (PENDING plus SUCCEEDED refunds) only where what is left still
 * covers it — concurrent refunds of one capture wait on the capture's row and each re-reads the sum — and writes the
 * refund and its provider command (same id) from that update's row, so a refund that does not fit writes nothing.
 */
@ApplicationScoped
public class Refunds {

    /** The order states whose capture may be refunded (REFUND_PENDING: what a failed refund left owed). */
    private static final String REFUNDABLE = "('PAID', 'SHIPPED', 'DELIVERED', 'REFUND_PENDING')";

    private static final String ISSUE = "with held as (update payment_captures k set refund_held = k.refund_held"
            + " + :amount from orders o where o.id = :order and o.status in " + REFUNDABLE + " and k.order_id = o.id"
            + " and k.provider = o.payment_provider and k.txn_id = o.payment_txn_id"
            + " and k.amount - k.refund_held >= :amount returning k.*),"
            + " refund as (insert into refunds (id, order_id, provider, capture_txn_id, amount, currency, reason,"
            + " issued_by, status, created_at, updated_at) select :id, h.order_id, h.provider, h.txn_id, :amount,"
            + " h.currency, :reason, :by, 'PENDING', cast(:now as timestamptz), cast(:now as timestamptz)"
            + " from held h returning *),"
            + " command as (insert into provider_commands (id, kind, order_id, provider, payment_reference,"
            + " capture_txn_id, amount, currency, state, tries, next_at, created_at, updated_at) select f.id,"
            + " 'REFUND', f.order_id, f.provider, a.reference, f.capture_txn_id, f.amount, f.currency, 'PENDING', 0,"
            + " cast(:now as timestamptz), cast(:now as timestamptz), cast(:now as timestamptz) from refund f"
            + " join held h on true left join payment_attempts a on a.id = h.attempt_id)";

    /** What the statements' event writes ({@link RefundEvents}) read: the refund recorded, the refunds settled. */
    private static final String ISSUED_ROWS = "refund";
    private static final String SETTLED_ROWS = "settled";

    /**
     * A refund's answer from its provider, once: PENDING to SUCCEEDED (the order's refunded amount grows, and with it
     * the order's version and update time: it reads otherwise than before) or FAILED (its amount is released from the
     * capture: owed again). A success locks its order's row first ({@code counting}), so the version it gives the
     * order, kept on the refund as {@code order_version}, is read after any move that committed meanwhile. Returns
     * the refund, or nothing when it was not PENDING.
     */
    private static final String SETTLE = "with counting as (select o.id, o.version from orders o join refunds r on"
            + " r.order_id = o.id where r.id = :id and r.status = 'PENDING' and :status = 'SUCCEEDED'"
            + " and o.status <> 'REFUNDED' for update of o),"
            + " settled as (update refunds set status = :status,"
            + " provider_refund_id = coalesce(provider_refund_id, cast(:provider_refund as text)),"
            + " failure_reason = cast(:reason as text), updated_at = cast(:now as timestamptz),"
            + " order_version = (select c.version + 1 from counting c)"
            + " where id = :id and status = 'PENDING' returning *),"
            + " released as (update payment_captures k set refund_held = k.refund_held - s.amount from settled s"
            + " where s.status = 'FAILED' and k.provider = s.provider and k.txn_id = s.capture_txn_id),"
            + " counted as (update orders o set refunded_amount = o.refunded_amount + s.amount, version ="
            + " s.order_version, updated_at = cast(:now as timestamptz) from settled s where s.order_version is not null"
            + " and o.id = s.order_id)";

    /**
     * The provider refused to make the refund its command asked for: the command FAILED (only while {@code claim}
     * still holds it, as every worker outcome) and, in the same statement, its refund FAILED and its amount released
     * from the capture, with the refund's event. One statement, so no crash leaves the command FAILED beside a refund
     * still PENDING, its amount held for ever (neither the worker nor the janitor takes a FAILED command). A refund
     * already settled (a notification came first) stays as it is; a double capture's command has no refund.
     */
    private static final String FAIL_SENT = "with command as (update provider_commands set state = 'FAILED',"
            + " refund_id = coalesce(cast(:provider_refund as text), refund_id), last_outcome = :outcome,"
            + " updated_at = cast(:now as timestamptz) where id = :id and claim = :claim returning *),"
            + " recorded as (insert into provider_refunds (provider, refund_id, command_id, capture_txn_id, seen_at)"
            + " select c.provider, cast(:provider_refund as text), c.id, c.capture_txn_id, cast(:now as timestamptz)"
            + " from command c where cast(:provider_refund as text) is not null"
            + " on conflict (provider, refund_id) do nothing),"
            + " failed as (update refunds f set status = 'FAILED',"
            + " provider_refund_id = coalesce(f.provider_refund_id, cast(:provider_refund as text)),"
            + " failure_reason = cast(:reason as text), updated_at = cast(:now as timestamptz) from command c"
            + " where f.id = c.id and f.status = 'PENDING' returning f.*),"
            + " released as (update payment_captures k set refund_held = k.refund_held - s.amount from failed s"
            + " where k.provider = s.provider and k.txn_id = s.capture_txn_id)";

    /** What the worker's refusal statement answers: whether its claim held, and the refund it failed, if any. */
    public record FailedWhenSent(boolean claimHeld, RefundView refund) {
    }

    /** What is asked: {@code amount} of the order's capture back, for {@code reason}, by {@code issuedBy}. */
    public record Issue(UUID id, UUID orderId, long amount, String reason, String issuedBy, Instant at) {
    }

    private final Db db;
    private final ObjectReader rows;
    private final SameStatementWrite event;
    private final String issueSql;
    private final String settleSql;
    private final String failSentSql;

    public Refunds(Db db, ObjectMapper json, RefundEvents events) {
        this.db = db;
        this.rows = PgTimestamps.rowReader(json, RefundEntity.class);
        // the refund's event is one more CTE of the statement that changes it: it exists exactly when the change does
        this.event = events.written();
        this.issueSql = ISSUE + ", issued_event as (" + event.sql(ISSUED_ROWS) + ")";
        this.settleSql = SETTLE + ", settled_event as (" + event.sql(SETTLED_ROWS) + ") select * from "
                + SETTLED_ROWS;
        this.failSentSql = FAIL_SENT + ", failed_event as (" + event.sql("failed") + ") select"
                + " cast((select count(*) from command) as int), (select cast(to_jsonb(f) as text) from failed f)";
    }

    /**
     * Records the refund and its provider command when it fits what is left of the order's capture, with
     * {@code record} (the request's idempotency record, reading rows shaped {@code (id: order, refund: row)}) in the
     * same statement; empty when it does not fit or the order holds no refundable capture.
     */
    public Uni<List<RefundView>> issue(Issue issue, SameStatementWrite record) {
        String recorded = record == null ? ""
                : ", recorded as (" + record.sql("(select f.order_id as id, to_jsonb(f) as refund from refund f)")
                        + ")";
        return db.run(session -> {
            var query = session.createNativeQuery(issueSql + recorded + " select * from " + ISSUED_ROWS,
                    RefundEntity.class)
                    .setParameter("amount", issue.amount()).setParameter("order", issue.orderId())
                    .setParameter("id", issue.id()).setParameter("reason", issue.reason())
                    .setParameter("by", issue.issuedBy()).setParameter("now", issue.at());
            if (record != null) {
                record.parameters().forEach(query::setParameter);
            }
            event.parameters().forEach(query::setParameter);
            return query.getResultList();
        }).map(found -> found.stream().map(RefundEntity::toView).toList());
    }

    /** The refund an idempotency record kept (the JSON its statement wrote: {@code {id, refund}}). */
    public RefundView recorded(String rowJson) {
        try {
            return ((RefundEntity) rows.readValue(rows.readTree(rowJson).get("refund"))).toView();
        } catch (IOException e) {
            throw new UncheckedIOException("a refund record that is not the table's JSON", e);
        }
    }

    public Uni<RefundView> find(UUID id) {
        return db.run(ResendSafety.READ, session -> session.get(RefundEntity.class, id))
                .map(found -> found == null ? null : found.toView());
    }

    public Uni<List<RefundView>> ofOrder(UUID orderId) {
        return db.run(ResendSafety.READ, session -> session.createNamedQuery(RefundEntity.OF_ORDER, RefundEntity.class)
                .setParameter("order", orderId).getResultList())
                .map(found -> found.stream().map(RefundEntity::toView).toList());
    }

    /** Keyset-paged by id, across orders, of one status or all. */
    public Uni<List<RefundView>> page(RefundView.Status status, UUID after, int limit) {
        UUID from = after == null ? new UUID(0, 0) : after; // PostgreSQL orders uuids by their bytes
        return db.run(ResendSafety.READ, session -> (status == null
                ? session.createNamedQuery(RefundEntity.PAGE, RefundEntity.class)
                : session.createNamedQuery(RefundEntity.PAGE_BY_STATUS, RefundEntity.class)
                        .setParameter("status", status.name()))
                .setParameter("after", from).setMaxResults(limit).getResultList())
                .map(found -> found.stream().map(RefundEntity::toView).toList());
    }

    /**
     * The provider's answer about refund {@code id}, applied once (only a PENDING refund settles); null when the
     * refund is unknown or was settled before.
     */
    public Uni<RefundView> settle(UUID id, RefundView.Status status, String providerRefundId, String reason,
            Instant at) {
        return db.run(session -> {
            var query = session.createNativeQuery(settleSql, RefundEntity.class).setParameter("id", id)
                    .setParameter("status", status.name()).setParameter("provider_refund", providerRefundId)
                    .setParameter("reason", reason).setParameter("now", at);
            event.parameters().forEach(query::setParameter);
            return query.getResultList();
        }).map(found -> found.isEmpty() ? null : found.get(0).toView());
    }

    /**
     * The provider refused command {@code id}'s refund ({@link #FAIL_SENT}): the command and its refund FAILED in
     * one statement, fenced by {@code claim}.
     */
    public Uni<FailedWhenSent> failWhenSent(UUID id, UUID claim, String providerRefundId, String outcome,
            String reason, Instant at) {
        return db.run(session -> {
            var query = session.createNativeQuery(failSentSql, Object[].class).setParameter("id", id)
                    .setParameter("claim", claim).setParameter("provider_refund", providerRefundId)
                    .setParameter("outcome", outcome).setParameter("reason", reason).setParameter("now", at);
            event.parameters().forEach(query::setParameter);
            return query.getSingleResult();
        }).map(row -> new FailedWhenSent(((Number) row[0]).intValue() == 1,
                row[1] == null ? null : readRow((String) row[1])));
    }

    private RefundView readRow(String rowJson) {
        try {
            return ((RefundEntity) rows.readValue(rowJson)).toView();
        } catch (IOException e) {
            throw new UncheckedIOException("a refund that is not the table's JSON", e);
        }
    }

    /** What is left to refund of the order's capture, or null when the order holds no refundable capture. */
    public Uni<Long> leftToRefund(UUID orderId) {
        return db.run(ResendSafety.READ, session -> session.createNativeQuery("select k.amount - k.refund_held"
                        + " from orders o join payment_captures k on k.order_id = o.id and k.provider = o.payment_provider"
                        + " and k.txn_id = o.payment_txn_id where o.id = :order and o.status in " + REFUNDABLE,
                        Long.class).setParameter("order", orderId).getResultList())
                .map(found -> found.isEmpty() ? null : found.get(0));
    }

    /** The order whose refunds give back capture {@code captureTxnId}, or null when no refund of ours does. */
    public Uni<UUID> orderRefunding(String provider, String captureTxnId) {
        return db.run(ResendSafety.READ, session -> session.createNativeQuery("select order_id from refunds"
                        + " where provider = :provider and capture_txn_id = :txn limit 1", UUID.class)
                .setParameter("provider", provider).setParameter("txn", captureTxnId).getResultList())
                .map(found -> found.isEmpty() ? null : found.get(0));
    }

    /** The refund of ours that the provider knows as {@code providerRefundId}, or null. */
    public Uni<RefundView> findByProviderRefund(String provider, String providerRefundId) {
        return db.run(ResendSafety.READ, session -> session.createNamedQuery(RefundEntity.BY_PROVIDER_REFUND,
                RefundEntity.class).setParameter("provider", provider).setParameter("refund", providerRefundId)
                .getResultList()).map(found -> found.isEmpty() ? null : found.get(0).toView());
    }
}
