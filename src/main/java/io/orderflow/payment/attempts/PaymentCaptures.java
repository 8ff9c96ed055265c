package io.orderflow.payment.attempts;

import io.orderflow.common.Db;
import io.orderflow.common.ResendSafety;
import io.orderflow.payment.commands.ProviderCommands;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.UUID;

/**
 * Money a provider captured ({@code payment_captures}, {@link PaymentCaptureEntity}), one row per provider
 * transaction, outside an order's move: whose a transaction is, a second capture of a paid order, the refund of such
 * a capture. (A capture that pays its order is written in the move's statement: {@link PaymentWrites}.)
 */
@ApplicationScoped
public class PaymentCaptures {

    private final Db db;

    public PaymentCaptures(Db db) {
        this.db = db;
    }

    /** The order a capture already belongs to; null when the provider's transaction id is new. */
    public Uni<UUID> owner(String provider, String txnId) {
        return db.run(ResendSafety.READ, session -> session.get(PaymentCaptureEntity.class,
                new PaymentCaptureEntity.Key(provider, txnId))).map(c -> c == null ? null : c.orderId);
    }

    /**
     * The order that capture {@code txnId} paid (the order's own payment, not a second capture of it), or null when
     * the capture is unknown or did not pay its order.
     */
    public Uni<UUID> paidOrder(String provider, String txnId) {
        return db.run(ResendSafety.READ, session -> session.createNativeQuery("select o.id from payment_captures k"
                        + " join orders o on o.id = k.order_id and o.payment_provider = k.provider"
                        + " and o.payment_txn_id = k.txn_id where k.provider = :provider and k.txn_id = :txn",
                        UUID.class)
                .setParameter("provider", provider).setParameter("txn", txnId).getResultList())
                .map(found -> found.isEmpty() ? null : found.get(0));
    }

    /**
     * A capture on an order another capture already paid: kept, with a refund owed (a provider command, in the same
     * statement). False when the provider's transaction id is already taken (by this capture, re-sent, or by
     * another order).
     */
    public Uni<Boolean> recordDoubleCapture(UUID attemptId, UUID orderId, String provider, String txnId, long amount,
            String currency, Instant at) {
        return db.run(session -> session.createNativeQuery("with captured as (insert into payment_captures"
                        + " (provider, txn_id, attempt_id, order_id, amount, currency, state, captured_at) values"
                        + " (:provider, :txn, cast(:attempt as uuid), :order, :amount, :currency, 'REFUND_OWED',"
                        + " cast(:at as timestamptz))"
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
    public Uni<CaptureRefund> refund(String provider, String txnId, UUID orderId, long amount, String currency,
            Instant at) {
        return db.run(session -> session.createNamedQuery(PaymentCaptureEntity.REFUND)
                .setParameter("provider", provider).setParameter("txn", txnId).setParameter("order", orderId)
                .setParameter("amount", amount).setParameter("currency", currency).setParameter("at", at)
                .executeUpdate())
                .chain(refunded -> refunded == 1 ? Uni.createFrom().item(CaptureRefund.REFUNDED)
                        : owner(provider, txnId).map(owner -> owner == null || !owner.equals(orderId)
                                ? CaptureRefund.UNKNOWN : CaptureRefund.AMOUNT_MISMATCH));
    }
}
