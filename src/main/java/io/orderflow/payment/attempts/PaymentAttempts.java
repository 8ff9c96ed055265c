package io.orderflow.payment.attempts;

import io.orderflow.common.Db;
import io.orderflow.common.ResendSafety;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Payment attempts in PostgreSQL ({@code payment_attempts}, {@link PaymentAttemptEntity}), read with Hibernate gets
 * and named HQL queries. The writes that must commit with an order's move ride in its statement
 * ({@link PaymentWrites}); the ones here are statements of their own: a stale attempt's failure, which moves no
 * order, and the janitor's claim.
 */
@ApplicationScoped
public class PaymentAttempts {

    private final Db db;

    public PaymentAttempts(Db db) {
        this.db = db;
    }

    /** @return null when there is no such attempt */
    public Uni<PaymentAttempt> find(UUID id) {
        return db.run(ResendSafety.READ, session -> session.get(PaymentAttemptEntity.class, id))
                .map(PaymentAttempts::attempt);
    }

    /** The attempt a provider calls {@code reference}; null when there is none. */
    public Uni<PaymentAttempt> findByReference(String provider, String reference) {
        return db.run(ResendSafety.READ, session -> session.createNamedQuery(PaymentAttemptEntity.BY_REFERENCE,
                        PaymentAttemptEntity.class).setParameter("provider", provider)
                .setParameter("reference", reference).getSingleResultOrNull()).map(PaymentAttempts::attempt);
    }

    /** A failure reported for an attempt that is no longer the order's current one: only the attempt changes. */
    public Uni<Void> markFailed(UUID attemptId, Instant at) {
        return db.run(session -> session.createNamedQuery(PaymentAttemptEntity.MARK_FAILED)
                .setParameter("id", attemptId).setParameter("at", at).executeUpdate()).replaceWithVoid();
    }

    /** A pending attempt its provider closed at our request: it can no longer be paid, nor needs asking about. */
    public Uni<Void> markCancelled(String provider, String reference, Instant at) {
        return db.run(session -> session.createNamedQuery(PaymentAttemptEntity.MARK_CANCELLED)
                .setParameter("provider", provider).setParameter("reference", reference).setParameter("at", at)
                .executeUpdate()).replaceWithVoid();
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
                .getResultList()).map(PaymentAttempts::attempts);
    }

    /**
     * What the janitor heard when it asked about attempt {@code id}; {@code updated_at} stays the claim's, so the
     * next question waits the whole window.
     */
    public Uni<Void> recordAnswer(UUID id, String answer, Instant at) {
        return db.run(session -> session.createNamedQuery(PaymentAttemptEntity.ANSWERED).setParameter("id", id)
                .setParameter("answer", answer).setParameter("at", at).executeUpdate()).replaceWithVoid();
    }

    /**
     * Attempts still pending that started before {@code before} (whether or not the janitor can ask about them: one
     * the provider never gave a reference has none), keyset-paged by id.
     */
    public Uni<List<PaymentAttemptEntity>> stuck(Instant before, UUID after, int limit) {
        UUID from = after == null ? new UUID(0, 0) : after; // PostgreSQL orders uuids by their bytes
        return db.run(ResendSafety.READ, session -> session.createNamedQuery(PaymentAttemptEntity.STUCK,
                        PaymentAttemptEntity.class).setParameter("before", before).setParameter("after", from)
                .setMaxResults(limit).getResultList());
    }

    /** All attempts of an order, oldest first (tests and operators). */
    public Uni<List<PaymentAttempt>> ofOrder(UUID orderId) {
        return db.run(ResendSafety.READ,
                session -> session.createNamedQuery(PaymentAttemptEntity.OF_ORDER, PaymentAttemptEntity.class)
                .setParameter("order", orderId).getResultList()).map(PaymentAttempts::attempts);
    }

    private static PaymentAttempt attempt(PaymentAttemptEntity row) {
        return row == null ? null : row.toAttempt();
    }

    private static List<PaymentAttempt> attempts(List<PaymentAttemptEntity> rows) {
        return rows.stream().map(PaymentAttemptEntity::toAttempt).toList();
    }
}
