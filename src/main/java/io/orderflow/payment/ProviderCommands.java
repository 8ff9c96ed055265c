package io.orderflow.payment;

import io.orderflow.common.Db;
import io.orderflow.common.SameStatementWrite;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Durable provider commands in PostgreSQL ({@code provider_commands}): a refund owed is written in the statement of
 * the decision that owes it, and claimed by {@link RefundWorker} with {@code FOR UPDATE SKIP LOCKED}.
 */
@ApplicationScoped
public class ProviderCommands {

    /** A refund the service owes: capture {@code captureTxnId} of the attempt whose reference is given. */
    public record Refund(UUID id, UUID orderId, String provider, String paymentReference, String captureTxnId,
            long amount, String currency, String state, int tries, String refundId, Instant createdAt) {
    }

    private static final String INSERT = "insert into provider_commands (id, kind, order_id, provider,"
            + " payment_reference, capture_txn_id, amount, currency, state, tries, next_at, created_at, updated_at)";

    /** A claimed command's columns, as {@link #refund} reads them. */
    private static final String RETURNED = "cast(c.id as text), cast(c.order_id as text), c.provider,"
            + " c.payment_reference, c.capture_txn_id, c.amount, c.currency, c.state, c.tries, c.refund_id,"
            + " c.created_at";

    private final Db db;

    public ProviderCommands(Db db) {
        this.db = db;
    }

    /**
     * The refund an order that moved to REFUND_PENDING owes for the capture that paid it (a CANCEL of a paid order,
     * a capture that arrived after a cancel). Rides in the transition's statement; once per capture.
     */
    public static SameStatementWrite refundOwedBy(Instant at) {
        return new SameStatementWrite() {
            @Override
            public String sql(String rows) {
                return INSERT + " select gen_random_uuid(), 'REFUND', r.id, r.payment_provider, a.reference,"
                        + " r.payment_txn_id, r.amount, r.currency, 'PENDING', 0, cast(:o_at as timestamptz),"
                        + " cast(:o_at as timestamptz), cast(:o_at as timestamptz) from " + rows + " r"
                        + " left join payment_attempts a on a.id = r.payment_attempt_id"
                        + " where r.status = 'REFUND_PENDING' and r.payment_txn_id is not null"
                        + " on conflict (kind, provider, capture_txn_id) do nothing";
            }

            @Override
            public Map<String, Object> parameters() {
                return Map.of("o_at", at);
            }
        };
    }

    /** The refund owed for a double capture, in the statement that records the capture. */
    static String refundOfCapturedSql() {
        return INSERT + " select gen_random_uuid(), 'REFUND', c.order_id, c.provider, a.reference, c.txn_id, c.amount,"
                + " c.currency, 'PENDING', 0, c.captured_at, c.captured_at, c.captured_at from captured c"
                + " left join payment_attempts a on a.id = c.attempt_id"
                + " on conflict (kind, provider, capture_txn_id) do nothing";
    }

    /**
     * Claims up to {@code limit} due refunds: each is pushed {@code lease} into the future and counted as tried, so
     * another replica skips it now and retries it if this one dies before recording the outcome.
     */
    public Uni<List<Refund>> claimDue(Instant now, Duration lease, int limit) {
        return db.run(session -> session.createNativeQuery("update provider_commands c set state = 'SENT',"
                        + " tries = c.tries + 1, next_at = cast(:next as timestamptz), updated_at = cast(:now as timestamptz)"
                        + " where c.id in (select id from provider_commands where state in ('PENDING', 'SENT')"
                        + " and next_at <= cast(:now as timestamptz) order by next_at limit :limit"
                        + " for update skip locked) returning " + RETURNED, Object[].class)
                .setParameter("now", now).setParameter("next", now.plus(lease)).setParameter("limit", limit)
                .getResultList())
                .map(rows -> rows.stream().map(ProviderCommands::refund).toList());
    }

    /**
     * Up to {@code limit} refunds sent (DONE) whose capture is still not known to be refunded — the provider's
     * notification never came — last looked at before {@code staleBefore}; each claimed until the next look
     * ({@code updated_at} moves on), so replicas reconciling at once ask about different refunds.
     */
    public Uni<List<Refund>> claimUnconfirmed(Instant staleBefore, Instant now, int limit) {
        return db.run(session -> session.createNativeQuery("update provider_commands c set updated_at ="
                        + " cast(:now as timestamptz) where c.id in (select p.id from provider_commands p"
                        + " join payment_captures k on k.provider = p.provider and k.txn_id = p.capture_txn_id"
                        + " where p.state = 'DONE' and k.state <> 'REFUNDED' and p.updated_at < cast(:before as timestamptz)"
                        + " order by p.updated_at limit :limit for update of p skip locked) returning " + RETURNED,
                        Object[].class)
                .setParameter("now", now).setParameter("before", staleBefore).setParameter("limit", limit)
                .getResultList())
                .map(rows -> rows.stream().map(ProviderCommands::refund).toList());
    }

    /** The provider's answer: done (refund id), or back to the queue at {@code retryAt}, or failed for good. */
    public Uni<Void> settle(UUID id, String state, String refundId, String outcome, Instant retryAt, Instant now) {
        return db.run(session -> session.createNativeQuery("update provider_commands set state = :state,"
                        + " refund_id = coalesce(cast(:refund as text), refund_id), last_outcome = :outcome,"
                        + " next_at = coalesce(cast(:retry as timestamptz), next_at), updated_at = cast(:now as timestamptz)"
                        + " where id = :id")
                .setParameter("state", state).setParameter("refund", refundId).setParameter("outcome", outcome)
                .setParameter("retry", retryAt).setParameter("now", now).setParameter("id", id)
                .executeUpdate()).replaceWithVoid();
    }

    /** The refunds owed for an order's captures (tests and operators). */
    public Uni<List<Refund>> ofOrder(UUID orderId) {
        return db.run(session -> session.createNativeQuery("select cast(id as text), cast(order_id as text),"
                        + " provider, payment_reference, capture_txn_id, amount, currency, state, tries, refund_id,"
                        + " created_at from provider_commands where order_id = :order order by created_at",
                        Object[].class)
                .setParameter("order", orderId).getResultList())
                .map(rows -> rows.stream().map(ProviderCommands::refund).toList());
    }

    private static Refund refund(Object[] row) {
        Object created = row[10];
        Instant createdAt = created instanceof Instant i ? i
                : created instanceof java.time.OffsetDateTime o ? o.toInstant()
                : created instanceof java.sql.Timestamp t ? t.toInstant() : null;
        return new Refund(UUID.fromString((String) row[0]), UUID.fromString((String) row[1]), (String) row[2],
                (String) row[3], (String) row[4], ((Number) row[5]).longValue(), ((String) row[6]).trim(),
                (String) row[7], ((Number) row[8]).intValue(), (String) row[9], createdAt);
    }
}
