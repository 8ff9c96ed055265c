package io.orderflow.idempotency;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.orderflow.common.Db;
import io.orderflow.common.Resend;
import io.orderflow.common.problem.ProblemMapper;
import io.smallrye.mutiny.Uni;
import io.vertx.pgclient.PgException;
import org.hibernate.exception.ConstraintViolationException;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

/** Reads and writes {@code idempotency_keys} on their own (the same-statement writes ride in business statements). */
@ApplicationScoped
public class IdempotencyRepository {

    /**
     * Stores an outcome and, in the same round trip, returns the record that stood when the key was taken: the main
     * query reads the snapshot from before the insert, so it sees a row only when someone else's stood.
     */
    private static final String INSERT_OR_FIND = "with stored as (insert into idempotency_keys (scope, idem_key, tier,"
            + " state, fingerprint, order_id, reply, created_at, expires_at) values (:scope, :key, :tier, :state,"
            + " :fingerprint, :orderId, cast(cast(:reply as text) as jsonb), cast(:created as timestamptz),"
            + " cast(:expires as timestamptz)) on conflict (scope, idem_key) do nothing returning 1)"
            + " select (select count(*) from stored)::int as inserted, to_jsonb(k)::text as winner"
            + " from (select 1) one left join idempotency_keys k on k.scope = :scope and k.idem_key = :key";

    private final Db db;
    private final ObjectReader rows;

    public IdempotencyRepository(Db db, ObjectMapper json) {
        this.db = db;
        this.rows = json.readerFor(IdempotencyKey.class).without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    public Uni<DedupRecord> find(String scope, String key) {
        return db.run(Resend.READ, session -> session.get(IdempotencyKey.class, new IdempotencyKey.Key(scope, key)))
                .map(row -> row == null ? null : DedupRecord.of(row));
    }

    /**
     * Stores an outcome that changed no business row, in one round trip with reading the record that won when the
     * key was recorded first by someone else.
     *
     * @return null when {@code record} was stored; otherwise the record that stands (read again in the rare case
     *         that it committed after this statement's snapshot was taken)
     */
    public Uni<DedupRecord> insertOrFind(DedupRecord record) {
        return db.run(Resend.KEYED, session -> session.createNativeQuery(INSERT_OR_FIND,
                session.getResultSetMapping(Object[].class, IdempotencyKey.INSERTED_OR_WINNER))
                .setParameter("scope", record.scope()).setParameter("key", record.key())
                .setParameter("tier", record.tier()).setParameter("state", record.state().name())
                .setParameter("fingerprint", record.fingerprint()).setParameter("orderId", record.orderId())
                .setParameter("reply", ReplyCodec.encode(record.reply()).encode())
                .setParameter("created", record.createdAt()).setParameter("expires", record.expiresAt())
                .getSingleResult()).chain(row -> {
                    if (((Number) row[0]).intValue() == 1) {
                        return Uni.createFrom().nullItem();
                    }
                    return row[1] != null ? Uni.createFrom().item(parse((String) row[1]))
                            : find(record.scope(), record.key());
                });
    }

    /** Marks up to {@code batch} rows past their expiry EXPIRED; several sweepers skip each other's rows. */
    public Uni<Integer> expireDue(int batch) {
        return db.run(session -> session.createNativeQuery("update idempotency_keys k set state = 'EXPIRED',"
                + " expired_at = now() from (select scope, idem_key from idempotency_keys where state <> 'EXPIRED'"
                + " and expires_at <= now() order by expires_at limit :batch for update skip locked) due"
                + " where k.scope = due.scope and k.idem_key = due.idem_key").setParameter("batch", batch)
                .executeUpdate());
    }

    /** Deletes up to {@code batch} rows that have been EXPIRED for longer than {@code grace}. */
    public Uni<Integer> purgeExpired(Duration grace, int batch) {
        return db.run(session -> session.createNativeQuery("delete from idempotency_keys k using (select scope,"
                + " idem_key from idempotency_keys where state = 'EXPIRED'"
                + " and expired_at <= now() - make_interval(secs => :grace) order by expired_at limit :batch"
                + " for update skip locked) old where k.scope = old.scope and k.idem_key = old.idem_key")
                .setParameter("grace", (double) grace.toSeconds()).setParameter("batch", batch).executeUpdate());
    }

    /**
     * Deletes up to {@code batch} submit tokens that expired longer than {@code grace} ago and that no dedup record
     * needs any more: a used token keys its request's record, and a replay must find the token for as long as the
     * record stands (its own purge comes first).
     */
    public Uni<Integer> purgeSubmitTokens(Duration grace, int batch) {
        return db.run(session -> session.createNativeQuery("delete from submit_tokens t using (select token"
                + " from submit_tokens s where expires_at <= now() - make_interval(secs => :grace)"
                + " and not exists (select 1 from idempotency_keys k where k.scope = s.consumed_scope"
                + " and k.idem_key = s.token) order by expires_at limit :batch for update skip locked) old"
                + " where t.token = old.token")
                .setParameter("grace", (double) grace.toSeconds()).setParameter("batch", batch).executeUpdate());
    }

    /** True when {@code failure} is the unique index on (scope, idem_key) refusing a second record. */
    public static boolean isDuplicateKey(Throwable failure) {
        Throwable cause = ProblemMapper.unwrap(failure);
        if (!"23505".equals(ProblemMapper.sqlState(cause))) {
            return false;
        }
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String constraint = t instanceof PgException pg ? pg.getConstraint()
                    : t instanceof ConstraintViolationException cve ? cve.getConstraintName() : null;
            if (constraint != null) {
                return constraint.startsWith("idempotency_keys");
            }
        }
        return false;
    }

    private DedupRecord parse(String rowJson) {
        try {
            return DedupRecord.of(rows.readValue(rowJson));
        } catch (IOException e) {
            throw new UncheckedIOException("an idempotency_keys row that is not the table's JSON", e);
        }
    }
}
