package io.orderflow.payment.commands;

import io.orderflow.common.Db;
import io.orderflow.common.ResendSafety;
import io.orderflow.common.SameStatementWrite;
import io.orderflow.payment.SameStatementSql;
import io.orderflow.payment.spi.RefundRequest;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.hibernate.reactive.mutiny.Mutiny;

/**
 * Durable provider commands in PostgreSQL ({@code provider_commands}, {@link ProviderCommandEntity}): a refund owed,
 * or a pending payment to cancel, is written in the statement of the decision that owes it (native, a
 * {@link SameStatementWrite}), claimed by {@code RefundWorker} with {@code FOR UPDATE SKIP LOCKED} (native, one
 * statement per claim), and read with HQL.
 * The refunds providers report are recorded once each in {@code provider_refunds}.
 */
@ApplicationScoped
public class ProviderCommands {

    /**
     * A refund the service owes: capture {@code captureTxnId} of the attempt whose reference is given. {@code claim}
     * is the token of the claim that read it, which fences its settle.
     */
    public record Refund(UUID id, UUID orderId, String provider, String paymentReference, String captureTxnId,
            long amount, String currency, String state, int tries, String refundId, Instant createdAt, UUID claim) {

        /** What the provider is asked to do, or asked about, for this command. */
        public RefundRequest request() {
            return new RefundRequest(id, paymentReference, captureTxnId, amount, currency, refundId);
        }
    }

    /**
     * A payment at its provider that a CANCEL left no order standing on: {@code paymentReference} is closed there
     * (Stripe PaymentIntent cancel, WeChat Pay close-order), once. {@code claim} fences its settle.
     */
    public record Cancel(UUID id, UUID orderId, String provider, String paymentReference, int tries, UUID claim) {
    }

    private static final String RECORD_REFUND = "insert into provider_refunds (provider, refund_id, command_id,"
            + " capture_txn_id, seen_at)";

    private static final String INSERT = "insert into provider_commands (id, kind, order_id, provider,"
            + " payment_reference, capture_txn_id, amount, currency, state, tries, next_at, created_at, updated_at)";

    private final Db db;

    public ProviderCommands(Db db) {
        this.db = db;
    }

    /** The name the statement gives the hold {@link #refundOwedBy} takes, which its other writes read. */
    private static final String HOLD_NAME = "owed_hold";

    /**
     * The capture of an order that moved to REFUND_PENDING, held whole now, with what was left of it before: read
     * under the capture row's lock ({@code FOR UPDATE} follows a refund issued while the move waited for that lock),
     * never from the statement's snapshot, which a refund committed meanwhile would make promise more than was
     * captured.
     */
    private static final String HOLD = "update payment_captures k set refund_held = k.amount from (select c.provider,"
            + " c.txn_id, c.amount - c.refund_held as left_amount from payment_captures c join %1$s m"
            + " on c.order_id = m.id and c.provider = m.payment_provider and c.txn_id = m.payment_txn_id"
            + " where m.status = 'REFUND_PENDING' for update of c) h where k.provider = h.provider"
            + " and k.txn_id = h.txn_id and h.left_amount > 0 returning k.order_id, h.left_amount";

    /**
     * What each moved order owes back: what the hold found left, or — a capture this very statement records (a
     * capture after a cancel), which holds its refund itself ({@code PaymentWrites.captured}) — the order's amount.
     */
    private static final String OWED = "(select h.order_id, h.left_amount from " + HOLD_NAME + " h union all"
            + " select r.id, r.amount from %1$s r where r.status = 'REFUND_PENDING' and r.payment_txn_id is not null"
            + " and not exists (select 1 from payment_captures s where s.provider = r.payment_provider"
            + " and s.txn_id = r.payment_txn_id))";

    /** The refund a move to REFUND_PENDING owes, as a relation with the refunds table's columns (none: empty). */
    private static final String OWED_REFUND = "(select cast(:o_refund as uuid) as id, r.id as order_id,"
            + " r.payment_provider as provider, r.payment_txn_id as capture_txn_id, w.left_amount as amount,"
            + " r.currency, coalesce(r.cancel_reason, 'order cancelled') as reason, cast(:o_by as text) as issued_by,"
            + " 'PENDING' as status, cast(null as text) as provider_refund_id, cast(null as text) as failure_reason,"
            + " cast(:o_at as timestamptz) as created_at, cast(:o_at as timestamptz) as updated_at from %1$s r"
            + " join " + OWED + " w on w.order_id = r.id)";

    /**
     * The refund an order that moved to REFUND_PENDING owes for the capture that paid it (a CANCEL of a paid order,
     * a capture that arrived after a cancel): what is left of the capture (its amount minus refunds PENDING or
     * SUCCEEDED), as refund {@code refundId} and its provider command, issued by {@code issuedBy}. Rides in the
     * transition's statement and is decided there: the capture is held whole, and what was left of it read, under
     * the capture row's lock ({@link #HOLD}, a write the statement names, whose rows the others read), so a refund
     * issued while the move waited is counted, not overrun (a refund racing a CANCEL of a paid order: one of 2500
     * where 1500 was issued first, not a check violation). The refund's {@code event} ({@code RefundEvents.written})
     * reads the same relation as its insert.
     */
    public static List<SameStatementWrite> refundOwedBy(UUID refundId, String issuedBy, Instant at,
            SameStatementWrite event) {
        return List.of(SameStatementSql.named(HOLD_NAME, HOLD),
                SameStatementSql.of("insert into refunds (id, order_id, provider, capture_txn_id, amount, currency,"
                        + " reason, issued_by, status, provider_refund_id, failure_reason, created_at, updated_at)"
                        + " select * from " + OWED_REFUND + " f", "o_refund", refundId, "o_by", issuedBy, "o_at", at),
                SameStatementSql.reading(event, OWED_REFUND, "o_refund", refundId, "o_by", issuedBy, "o_at", at),
                SameStatementSql.of(INSERT + " select :o_refund, 'REFUND', r.id, r.payment_provider, a.reference,"
                        + " r.payment_txn_id, w.left_amount, r.currency, 'PENDING', 0, cast(:o_at as timestamptz),"
                        + " cast(:o_at as timestamptz), cast(:o_at as timestamptz) from %1$s r join " + OWED
                        + " w on w.order_id = r.id left join payment_attempts a on a.id = r.payment_attempt_id",
                        "o_refund", refundId, "o_at", at));
    }

    /** The refund owed for a double capture, in the statement that records the capture. */
    public static String refundOfCapturedSql() {
        return INSERT + " select gen_random_uuid(), 'REFUND', c.order_id, c.provider, a.reference, c.txn_id, c.amount,"
                + " c.currency, 'PENDING', 0, c.captured_at, c.captured_at, c.captured_at from captured c"
                + " left join payment_attempts a on a.id = c.attempt_id";
    }

    /**
     * The cancel owed by an order a CANCEL moved out of PAYMENT_PENDING: its pending attempt's payment is closed at
     * the provider. Rides in the transition's statement, reading the moved row, so a repeated CANCEL (which moves
     * nothing) owes nothing more, and the unique cancel per payment makes any other repeat write nothing.
     */
    public static SameStatementWrite cancelOwedBy(UUID commandId, Instant at) {
        return SameStatementSql.of(INSERT + " select :x_id, 'CANCEL', r.id, a.provider, a.reference, null, a.amount,"
                + " a.currency, 'PENDING', 0, cast(:x_at as timestamptz), cast(:x_at as timestamptz),"
                + " cast(:x_at as timestamptz) from %s r join payment_attempts a on a.id = r.payment_attempt_id"
                + " where r.status = 'CANCELLED' and a.state = 'PENDING' and a.reference is not null"
                + " on conflict do nothing", "x_id", commandId, "x_at", at);
    }

    /**
     * The cancels owed by a PAY that replaced its order's pending attempts (the shopper switched provider): each
     * replaced attempt's payment is closed at its provider by a durable command, written in the PAY's statement
     * beside the {@code REPLACED} mark — from the same snapshot, the attempts the mark changes — so that no crash
     * after the commit leaves a replaced payment payable. One per payment, as every cancel.
     */
    public static SameStatementWrite cancelOfReplaced(UUID replacedBy, Instant at) {
        return SameStatementSql.of(INSERT + " select gen_random_uuid(), 'CANCEL', r.id, p.provider, p.reference,"
                + " null, p.amount, p.currency, 'PENDING', 0, cast(:y_at as timestamptz), cast(:y_at as timestamptz),"
                + " cast(:y_at as timestamptz) from %s r join payment_attempts p on p.order_id = r.id"
                + " where p.state = 'PENDING' and p.reference is not null and p.id <> cast(:y_by as uuid)"
                + " on conflict do nothing", "y_by", replacedBy, "y_at", at);
    }

    /**
     * The cancel owed for a payment a PAY created and then did not move its order with (another request won the
     * compare-and-set): a statement of its own, since the PAY's wrote nothing. Written only while no attempt has the
     * PAY's attempt id: a copy of the same PAY (the same key, so the same attempt and payment) that won handed that
     * very payment to the shopper.
     */
    public Uni<Void> cancelAbandoned(UUID orderId, UUID attemptId, String provider, String reference, long amount,
            String currency, Instant at) {
        return db.run(session -> session.createNativeQuery(INSERT + " select gen_random_uuid(), 'CANCEL', :order,"
                        + " :provider, :reference, null, :amount, :currency, 'PENDING', 0, cast(:at as timestamptz),"
                        + " cast(:at as timestamptz), cast(:at as timestamptz) where not exists (select 1 from"
                        + " payment_attempts where id = :attempt) on conflict do nothing")
                .setParameter("order", orderId).setParameter("provider", provider).setParameter("reference", reference)
                .setParameter("amount", amount).setParameter("currency", currency).setParameter("at", at)
                .setParameter("attempt", attemptId).executeUpdate()).replaceWithVoid();
    }

    /**
     * Claims up to {@code limit} due refunds: each is pushed {@code lease} into the future, counted as tried and
     * given a new claim token, so another replica skips it now and retries it if this one dies before recording the
     * outcome — and this one's late outcome, once another has claimed it, is refused by {@link #settle}. Native SQL, as
     * every claim here: HQL has neither {@code FOR UPDATE SKIP LOCKED} in a subquery nor {@code UPDATE ...
     * RETURNING}, and the claim must be one statement, so that two replicas never take the same command.
     */
    public Uni<List<Refund>> claimDue(Instant now, Duration lease, int limit) {
        return claimDue(now, now, lease, limit);
    }

    /** As {@link #claimDue(Instant, Duration, int)}, for commands due by {@code dueBy} (a pass's start). */
    public Uni<List<Refund>> claimDue(Instant dueBy, Instant now, Duration lease, int limit) {
        return claimDue("REFUND", dueBy, now, lease, limit)
                .map(rows -> rows.stream().map(ProviderCommandEntity::toRefund).toList());
    }

    /** Due cancels, claimed as refunds are ({@link #claimDue(Instant, Duration, int)}). */
    public Uni<List<Cancel>> claimDueCancels(Instant dueBy, Instant now, Duration lease, int limit) {
        return claimDue("CANCEL", dueBy, now, lease, limit)
                .map(rows -> rows.stream().map(ProviderCommandEntity::toCancel).toList());
    }

    private Uni<List<ProviderCommandEntity>> claimDue(String kind, Instant dueBy, Instant now, Duration lease,
            int limit) {
        return db.run(session -> session.createNativeQuery("update provider_commands c set state = 'SENT',"
                        + " tries = c.tries + 1, claim = gen_random_uuid(), next_at = cast(:next as timestamptz),"
                        + " updated_at = cast(:now as timestamptz) where c.id in (select id from provider_commands"
                        + " where state in ('PENDING', 'SENT') and kind = :kind"
                        + " and next_at <= cast(:due as timestamptz) order by next_at limit :limit"
                        + " for update skip locked) returning c.*",
                        ProviderCommandEntity.class)
                .setParameter("kind", kind).setParameter("due", dueBy).setParameter("now", now)
                .setParameter("next", now.plus(lease)).setParameter("limit", limit).getResultList());
    }

    /**
     * Up to {@code limit} refunds sent (DONE) whose outcome is still not known — their refund is PENDING, or (a
     * double capture's, which has no refund row) their capture is not refunded: the provider's notification never
     * came — last looked at before {@code staleBefore}; each claimed until the next look ({@code updated_at} moves
     * on), so replicas reconciling at once ask about different refunds.
     */
    public Uni<List<Refund>> claimUnconfirmed(Instant staleBefore, Instant now, int limit) {
        return claim(session -> session.createNativeQuery("update provider_commands c set updated_at ="
                        + " cast(:now as timestamptz) where c.id in (select p.id from provider_commands p"
                        + " join payment_captures k on k.provider = p.provider and k.txn_id = p.capture_txn_id"
                        + " left join refunds f on f.id = p.id where p.state = 'DONE' and k.state <> 'REFUNDED'"
                        + " and (f.id is null or f.status = 'PENDING') and p.updated_at < cast(:before as timestamptz)"
                        + " order by p.updated_at limit :limit for update of p skip locked) returning c.*",
                        ProviderCommandEntity.class)
                .setParameter("now", now).setParameter("before", staleBefore).setParameter("limit", limit));
    }

    /**
     * The provider's answer: done (refund id), or back to the queue at {@code retryAt}, or failed for good — only
     * while {@code claim} is still the command's claim: once its lease ran out and another replica claimed the
     * command, this answer is stale and changes nothing (false). A refund id the provider named is recorded in
     * {@code provider_refunds} and on the command's refund in the same statement (data-modifying CTEs, hence
     * native SQL).
     */
    public Uni<Boolean> settle(UUID id, UUID claim, String state, String refundId, String outcome, Instant retryAt,
            Instant now) {
        return db.run(session -> session.createNativeQuery("with settled as (update provider_commands set"
                        + " state = :state, refund_id = coalesce(cast(:refund as text), refund_id),"
                        + " last_outcome = :outcome, next_at = coalesce(cast(:retry as timestamptz), next_at),"
                        + " updated_at = cast(:now as timestamptz) where id = :id and claim = :claim returning *),"
                        + " recorded as (" + RECORD_REFUND + " select s.provider, cast(:refund as text), s.id,"
                        + " s.capture_txn_id, cast(:now as timestamptz) from settled s"
                        + " where cast(:refund as text) is not null on conflict (provider, refund_id) do nothing),"
                        + " named as (update refunds f set provider_refund_id = cast(:refund as text) from settled s"
                        + " where f.id = s.id and f.provider_refund_id is null and cast(:refund as text) is not null)"
                        + " select count(*) from settled", Long.class)
                .setParameter("state", state).setParameter("refund", refundId).setParameter("outcome", outcome)
                .setParameter("retry", retryAt).setParameter("now", now).setParameter("id", id)
                .setParameter("claim", claim).getSingleResult()).map(settled -> settled == 1);
    }

    /**
     * A refund a provider reported (a notification, a reconciliation's look-up), recorded once per provider refund
     * id with the command it was made for: {@code command} (the refund of ours it names) when known, else the
     * capture's command, if any.
     */
    public Uni<Void> recordRefund(String provider, String refundId, String captureTxnId, UUID command, Instant at) {
        return db.run(session -> session.createNativeQuery(RECORD_REFUND + " select :provider, :refund,"
                        + " (select c.id from provider_commands c where c.kind = 'REFUND' and c.provider = :provider"
                        + " and c.capture_txn_id = :txn and (cast(:command as uuid) is null or c.id = cast(:command as uuid))"
                        + " order by c.created_at limit 1), :txn, cast(:at as timestamptz)"
                        + " on conflict (provider, refund_id) do nothing")
                .setParameter("provider", provider).setParameter("refund", refundId).setParameter("txn", captureTxnId)
                .setParameter("command", command).setParameter("at", at).executeUpdate()).replaceWithVoid();
    }

    /** The refunds owed for an order's captures (tests and operators). */
    public Uni<List<Refund>> ofOrder(UUID orderId) {
        return db.run(ResendSafety.READ,
                session -> session.createNamedQuery(ProviderCommandEntity.OF_ORDER, ProviderCommandEntity.class)
                .setParameter("order", orderId).getResultList())
                .map(rows -> rows.stream().map(ProviderCommandEntity::toRefund).toList());
    }

    private Uni<List<Refund>> claim(
            Function<Mutiny.StatelessSession, Mutiny.SelectionQuery<ProviderCommandEntity>> query) {
        return db.run(session -> query.apply(session).getResultList())
                .map(rows -> rows.stream().map(ProviderCommandEntity::toRefund).toList());
    }
}
