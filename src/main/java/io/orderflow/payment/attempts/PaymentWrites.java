package io.orderflow.payment.attempts;

import static io.orderflow.payment.SameStatementSql.of;

import io.orderflow.common.SameStatementWrite;
import io.orderflow.payment.SameStatementSql;
import io.orderflow.payment.commands.ProviderCommands;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * What a payment attempt or capture becomes when an order moves, written in the move's own statement: native
 * {@link SameStatementWrite}s reading the moved row ({@code %s}), data-modifying CTEs, which HQL cannot express. So
 * the attempt a PAY starts, the capture a success takes and the refund that closes it commit with the move or not
 * at all.
 */
final class PaymentWrites {

    private static final String COLUMNS = "id, order_id, provider, reference, amount, currency, state";

    /** The refunds still PENDING of the capture a refund report names, for the order that moved ({@code r}). */
    private static final String PENDING_OF_CAPTURE = "f.order_id = r.id and f.provider = :r_provider"
            + " and f.capture_txn_id = :r_txn and f.status = 'PENDING'";

    private PaymentWrites() {
    }

    /**
     * PAY's writes: the attempt, for the amount of the order that moved, the order's previous pending attempt (when
     * the shopper changed provider) marked replaced, and the cancel of its payment owed to its provider, a durable
     * command ({@link ProviderCommands#cancelOfReplaced}). (A data-modifying CTE must be top level, hence three.)
     */
    static List<SameStatementWrite> started(UUID attemptId, String provider, String reference, Instant at) {
        return List.of(of("insert into payment_attempts (" + COLUMNS + ", created_at, updated_at)"
                        + " select :a_id, r.id, :a_provider, cast(:a_ref as text), r.amount, r.currency, 'PENDING',"
                        + " cast(:a_at as timestamptz), cast(:a_at as timestamptz) from %s r"
                        // a repeat of the PAY that started it (its Redis entry gone) must fail on its idempotency
                        // record, which the gate answers with the stored first answer, not on the attempt
                        + " on conflict (id) do nothing",
                "a_id", attemptId, "a_provider", provider, "a_ref", reference, "a_at", at),
                // the replaced attempts name the PAY that replaced them
                of("update payment_attempts p set state = 'REPLACED', replaced_by = cast(:a_id as uuid),"
                        + " updated_at = cast(:a_at as timestamptz) from %s r where p.order_id = r.id"
                        + " and p.state = 'PENDING'", "a_id", attemptId, "a_at", at),
                ProviderCommands.cancelOfReplaced(attemptId, at));
    }

    /**
     * A capture that paid the order that moved: the attempt (null: the order's current one) is captured and the
     * transaction id becomes its own (a transaction id already taken makes the whole statement fail: nothing moves).
     */
    static List<SameStatementWrite> captured(UUID attemptId, String provider, String txnId, long amount,
            String currency, Instant at) {
        // a capture that arrives after a cancel holds the refund it is owed (ProviderCommands.refundOwedBy)
        return List.of(of("insert into payment_captures (provider, txn_id, attempt_id, order_id, amount,"
                        + " currency, state, captured_at, refund_held) select :c_provider, :c_txn,"
                        + " coalesce(cast(:c_attempt as uuid), r.payment_attempt_id), r.id,"
                        + " :c_amount, :c_currency, 'CAPTURED', cast(:c_at as timestamptz),"
                        + " case when r.status = 'REFUND_PENDING' then :c_amount else 0 end from %s r",
                "c_provider", provider, "c_txn", txnId, "c_attempt", attemptId, "c_amount", amount,
                "c_currency", currency, "c_at", at),
                of("update payment_attempts p set state = 'CAPTURED', updated_at = cast(:c_at as timestamptz)"
                        + " from %s r where p.id = coalesce(cast(:c_attempt as uuid), r.payment_attempt_id)"
                        + " and p.order_id = r.id",
                        "c_attempt", attemptId, "c_at", at));
    }

    /** A failure that moved the order back: its attempt (null: the order's current one) failed. */
    static SameStatementWrite failed(UUID attemptId, Instant at) {
        return of("update payment_attempts p set state = 'FAILED', updated_at = cast(:f_at as timestamptz)"
                + " from %s r where p.id = coalesce(cast(:f_attempt as uuid), r.payment_attempt_id)"
                + " and p.order_id = r.id and p.state = 'PENDING'", "f_attempt", attemptId, "f_at", at);
    }

    /**
     * A refund that moved the order to REFUNDED: the capture it gave back is refunded, and so is every refund of it
     * still PENDING (a provider's report of the whole capture refunded, which names no refund of ours), each with
     * its {@code event} ({@code RefundEvents}). The event reads what the update changes from the statement's
     * snapshot (a data-modifying CTE cannot read another's rows here): the same PENDING refunds, as SUCCEEDED.
     */
    static List<SameStatementWrite> refunded(String provider, String txnId, Instant at, SameStatementWrite event) {
        Object[] parameters = {"r_provider", provider, "r_txn", txnId, "r_at", at};
        return List.of(of("update payment_captures c set state = 'REFUNDED', refunded_at = cast(:r_at as timestamptz)"
                + " from %s r where c.order_id = r.id and c.provider = :r_provider and c.txn_id = :r_txn", parameters),
                of("update refunds f set status = 'SUCCEEDED', updated_at = cast(:r_at as timestamptz) from %s r"
                        + " where " + PENDING_OF_CAPTURE, parameters),
                SameStatementSql.reading(event, "(select f.id, f.order_id, f.provider, f.capture_txn_id, f.amount,"
                        + " f.currency, f.reason, f.issued_by, 'SUCCEEDED' as status, f.provider_refund_id,"
                        + " f.failure_reason, f.created_at, cast(:r_at as timestamptz) as updated_at"
                        + " from refunds f join %s r on " + PENDING_OF_CAPTURE + ")", parameters));
    }
}
