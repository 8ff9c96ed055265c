package io.orderflow.payment;

import io.orderflow.common.Db;
import io.orderflow.common.SameStatementWrite;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Payment attempts and captures in PostgreSQL. Reads are Hibernate gets and named HQL queries on
 * {@link PaymentAttemptEntity} and {@link PaymentCaptureEntity}. The writes that must commit with an order's move
 * are native {@link SameStatementWrite}s reading the moved row ({@code rows}): they ride in the transition's one
 * statement as data-modifying CTEs, which HQL cannot express. The ones that record what did not move an order (a
 * stale failure, a double capture) are statements of their own.
 */
@ApplicationScoped
public class PaymentAttempts {

    private static final String COLUMNS = "id, order_id, provider, reference, amount, currency, state";

    private final Db db;

    public PaymentAttempts(Db db) {
        this.db = db;
    }

    /** @return null when there is no such attempt */
    public Uni<PaymentAttempt> find(UUID id) {
        return db.run(session -> session.get(PaymentAttemptEntity.class, id)).map(PaymentAttempts::attempt);
    }

    /** The attempt a provider calls {@code reference}; null when there is none. */
    public Uni<PaymentAttempt> findByReference(String provider, String reference) {
        return db.run(session -> session.createNamedQuery(PaymentAttemptEntity.BY_REFERENCE,
                        PaymentAttemptEntity.class).setParameter("provider", provider)
                .setParameter("reference", reference).getSingleResultOrNull()).map(PaymentAttempts::attempt);
    }

    /** The attempts the PAY that started attempt {@code by} replaced in its statement. */
    public Uni<List<PaymentAttempt>> replacedBy(UUID by) {
        return db.run(session -> session.createNamedQuery(PaymentAttemptEntity.REPLACED_BY, PaymentAttemptEntity.class)
                .setParameter("by", by).getResultList())
                .map(rows -> rows.stream().map(PaymentAttemptEntity::toAttempt).toList());
    }

    /** The order a capture already belongs to; null when the provider's transaction id is new. */
    public Uni<UUID> captureOwner(String provider, String txnId) {
        return db.run(session -> session.get(PaymentCaptureEntity.class,
                new PaymentCaptureEntity.Key(provider, txnId))).map(c -> c == null ? null : c.orderId);
    }

    /**
     * PAY's writes: the attempt, for the amount of the order that moved, and the order's previous pending attempt
     * (when the shopper changed provider) marked replaced. (A data-modifying CTE must be top level, hence two.)
     */
    public static List<SameStatementWrite> started(UUID attemptId, String provider, String reference, Instant at) {
        return List.of(write("insert into payment_attempts (" + COLUMNS + ", created_at, updated_at)"
                        + " select :a_id, r.id, :a_provider, cast(:a_ref as text), r.amount, r.currency, 'PENDING',"
                        + " cast(:a_at as timestamptz), cast(:a_at as timestamptz) from %s r"
                        // a repeat of the PAY that started it (its Redis entry gone) must fail on its idempotency
                        // record, which the gate answers with the stored first answer, not on the attempt
                        + " on conflict (id) do nothing",
                "a_id", attemptId, "a_provider", provider, "a_ref", reference, "a_at", at),
                // the replaced attempts name the PAY that replaced them: it cancels exactly these afterwards
                write("update payment_attempts p set state = 'REPLACED', replaced_by = cast(:a_id as uuid),"
                        + " updated_at = cast(:a_at as timestamptz) from %s r where p.order_id = r.id"
                        + " and p.state = 'PENDING'", "a_id", attemptId, "a_at", at));
    }

    /**
     * A capture that paid the order that moved: the attempt (null: the order's current one) is captured and the
     * transaction id becomes its own (a transaction id already taken makes the whole statement fail: nothing moves).
     */
    public static List<SameStatementWrite> captured(UUID attemptId, String provider, String txnId, long amount,
            String currency, Instant at) {
        return List.of(write("insert into payment_captures (provider, txn_id, attempt_id, order_id, amount,"
                        + " currency, state, captured_at) select :c_provider, :c_txn,"
                        + " coalesce(cast(:c_attempt as uuid), r.payment_attempt_id), r.id,"
                        + " :c_amount, :c_currency, 'CAPTURED', cast(:c_at as timestamptz) from %s r",
                "c_provider", provider, "c_txn", txnId, "c_attempt", attemptId, "c_amount", amount,
                "c_currency", currency, "c_at", at),
                write("update payment_attempts p set state = 'CAPTURED', updated_at = cast(:c_at as timestamptz)"
                        + " from %s r where p.id = coalesce(cast(:c_attempt as uuid), r.payment_attempt_id)"
                        + " and p.order_id = r.id",
                        "c_attempt", attemptId, "c_at", at));
    }

    /** A failure that moved the order back: its attempt (null: the order's current one) failed. */
    public static SameStatementWrite failed(UUID attemptId, Instant at) {
        return write("update payment_attempts p set state = 'FAILED', updated_at = cast(:f_at as timestamptz)"
                + " from %s r where p.id = coalesce(cast(:f_attempt as uuid), r.payment_attempt_id)"
                + " and p.order_id = r.id and p.state = 'PENDING'", "f_attempt", attemptId, "f_at", at);
    }

    /** A refund that moved the order to REFUNDED: the capture it gave back is refunded. */
    public static SameStatementWrite refunded(String provider, String txnId, Instant at) {
        return write("update payment_captures c set state = 'REFUNDED', refunded_at = cast(:r_at as timestamptz)"
                + " from %s r where c.order_id = r.id and c.provider = :r_provider and c.txn_id = :r_txn",
                "r_provider", provider, "r_txn", txnId, "r_at", at);
    }

    /** A failure reported for an attempt that is no longer the order's current one: only the attempt changes. */
    public Uni<Void> markFailed(UUID attemptId, Instant at) {
        return db.run(session -> session.createNamedQuery(PaymentAttemptEntity.MARK_FAILED)
                .setParameter("id", attemptId).setParameter("at", at).executeUpdate()).replaceWithVoid();
    }

    /**
     * A capture on an order another capture already paid: kept, with a refund owed (a provider command, in the same
     * statement). False when the provider's transaction id is already taken (by this capture, re-sent, or by
     * another order).
     */
    public Uni<Boolean> recordDoubleCapture(UUID attemptId, UUID orderId, String provider, String txnId, long amount,
            String currency, Instant at) {
        return db.run(session -> session.createNativeQuery("with captured as (insert into payment_captures (provider,"
                        + " txn_id, attempt_id, order_id, amount, currency, state, captured_at) values (:provider, :txn,"
                        + " cast(:attempt as uuid), :order, :amount, :currency, 'REFUND_OWED', cast(:at as timestamptz))"
                        + " on conflict (provider, txn_id) do nothing returning *) "
                        + ProviderCommands.refundOfCapturedSql())
                .setParameter("provider", provider).setParameter("txn", txnId).setParameter("attempt", attemptId)
                .setParameter("order", orderId).setParameter("amount", amount).setParameter("currency", currency)
                .setParameter("at", at).executeUpdate()).map(inserted -> inserted == 1);
    }

    /** What a refund of a capture that did not pay its order came to. */
    public enum CaptureRefund {
        /** The capture is refunded. */
        REFUNDED,
        /** The capture is the order's, but it took another amount or currency than the refund gives back. */
        AMOUNT_MISMATCH,
        /** No capture of the order has that transaction id. */
        UNKNOWN
    }

    /**
     * A refund of a double capture: it never touches the order, whose own capture it did not give back. The
     * capture is found first and the refund's amount checked against what that capture took.
     */
    public Uni<CaptureRefund> refundCapture(String provider, String txnId, UUID orderId, long amount,
            String currency, Instant at) {
        return db.run(session -> session.createNamedQuery(PaymentCaptureEntity.REFUND)
                .setParameter("provider", provider).setParameter("txn", txnId).setParameter("order", orderId)
                .setParameter("amount", amount).setParameter("currency", currency).setParameter("at", at)
                .executeUpdate())
                .chain(refunded -> refunded == 1 ? Uni.createFrom().item(CaptureRefund.REFUNDED)
                        : db.run(session -> session.get(PaymentCaptureEntity.class,
                                new PaymentCaptureEntity.Key(provider, txnId))).map(capture -> capture == null
                                        || !capture.orderId.equals(orderId) ? CaptureRefund.UNKNOWN
                                                : CaptureRefund.AMOUNT_MISMATCH));
    }

    /**
     * Up to {@code limit} attempts pending since before {@code staleBefore}, each claimed for {@code lease} (its
     * {@code updated_at} moves on), so replicas reconciling at once ask about different attempts. Native SQL: HQL
     * has neither {@code FOR UPDATE SKIP LOCKED} in a subquery nor {@code UPDATE ... RETURNING}, and without them
     * the claim would be a locking read and an update in a transaction, two round trips instead of one statement.
     */
    public Uni<List<PaymentAttempt>> claimStale(Instant staleBefore, Instant now, int limit) {
        return db.run(session -> session.createNativeQuery("update payment_attempts p set updated_at ="
                        + " cast(:now as timestamptz) where p.id in (select id from payment_attempts where state = 'PENDING'"
                        + " and reference is not null and updated_at < cast(:before as timestamptz) order by updated_at"
                        + " limit :limit for update skip locked) returning p.*", PaymentAttemptEntity.class)
                .setParameter("now", now).setParameter("before", staleBefore).setParameter("limit", limit)
                .getResultList())
                .map(rows -> rows.stream().map(PaymentAttemptEntity::toAttempt).toList());
    }

    /** All attempts of an order, oldest first (tests and operators). */
    public Uni<List<PaymentAttempt>> ofOrder(UUID orderId) {
        return db.run(session -> session.createNamedQuery(PaymentAttemptEntity.OF_ORDER, PaymentAttemptEntity.class)
                .setParameter("order", orderId).getResultList())
                .map(rows -> rows.stream().map(PaymentAttemptEntity::toAttempt).toList());
    }

    private static PaymentAttempt attempt(PaymentAttemptEntity row) {
        return row == null ? null : row.toAttempt();
    }

    /** A write whose SQL names the moved rows with {@code %s}; parameters as name, value pairs. */
    private static SameStatementWrite write(String sql, Object... pairs) {
        Map<String, Object> params = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            params.put((String) pairs[i], pairs[i + 1]);
        }
        Map<String, Object> frozen = java.util.Collections.unmodifiableMap(params);
        return new SameStatementWrite() {
            @Override
            public String sql(String rows) {
                return sql.formatted(rows);
            }

            @Override
            public Map<String, Object> parameters() {
                return frozen;
            }
        };
    }
}
