package io.orderflow.idempotency;

import io.orderflow.common.Db;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Tuple;
import io.vertx.pgclient.PgException;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;

/** Reads and writes {@code idempotency_keys} on their own (the same-statement writes live with the business SQL). */
@ApplicationScoped
public class IdempotencyRepository {

    /** The main query reads the snapshot from before the insert: it sees a row only when someone else's stood. */
    private static final String INSERT_OR_FIND = "with stored as (" + DedupRecord.insertSql(0, null)
            + " on conflict (scope, idem_key) do nothing returning 1)"
            + " select (select count(*) from stored) as inserted, k.* from (select 1) one"
            + " left join idempotency_keys k on k.scope = $1 and k.idem_key = $2";

    private final Db db;

    public IdempotencyRepository(Db db) {
        this.db = db;
    }

    public Uni<DedupRecord> find(String scope, String key) {
        return db.execute("select * from idempotency_keys where scope = $1 and idem_key = $2", Tuple.of(scope, key))
                .map(rows -> rows.size() == 0 ? null : DedupRecord.from(rows.iterator().next()));
    }

    /**
     * Stores an outcome that changed no business row, in one round trip with reading the record that won when the
     * key was recorded first by someone else.
     *
     * @return null when {@code record} was stored; otherwise the record that stands (read again in the rare case
     *         that it committed after this statement's snapshot was taken)
     */
    public Uni<DedupRecord> insertOrFind(DedupRecord record) {
        return db.execute(INSERT_OR_FIND, Tuple.from(record.params())).chain(rows -> {
            var row = rows.iterator().next();
            if (row.getLong("inserted") == 1) {
                return Uni.createFrom().nullItem();
            }
            return row.getString("scope") != null ? Uni.createFrom().item(DedupRecord.from(row))
                    : find(record.scope(), record.key());
        });
    }

    /** Marks up to {@code batch} rows past their expiry EXPIRED; several sweepers skip each other's rows. */
    public Uni<Integer> expireDue(int batch) {
        return db.execute("update idempotency_keys k set state = 'EXPIRED', expired_at = now()"
                + " from (select scope, idem_key from idempotency_keys where state <> 'EXPIRED' and expires_at <= now()"
                + " order by expires_at limit $1 for update skip locked) due"
                + " where k.scope = due.scope and k.idem_key = due.idem_key", Tuple.of(batch))
                .map(rows -> rows.rowCount());
    }

    /** Deletes up to {@code batch} rows that have been EXPIRED for longer than {@code grace}. */
    public Uni<Integer> purgeExpired(Duration grace, int batch) {
        return db.execute("delete from idempotency_keys k using (select scope, idem_key from idempotency_keys"
                + " where state = 'EXPIRED' and expired_at <= now() - make_interval(secs => $1)"
                + " order by expired_at limit $2 for update skip locked) old"
                + " where k.scope = old.scope and k.idem_key = old.idem_key",
                Tuple.of((double) grace.toSeconds(), batch)).map(rows -> rows.rowCount());
    }

    /**
     * Deletes up to {@code batch} submit tokens that expired longer than {@code grace} ago and that no dedup record
     * needs any more: a used token keys its request's record, and a replay must find the token for as long as the
     * record stands (its own purge comes first).
     */
    public Uni<Integer> purgeSubmitTokens(Duration grace, int batch) {
        return db.execute("delete from submit_tokens t using (select token from submit_tokens s"
                + " where expires_at <= now() - make_interval(secs => $1) and not exists (select 1 from idempotency_keys k"
                + " where k.scope = s.consumed_scope and k.idem_key = s.token)"
                + " order by expires_at limit $2 for update skip locked) old where t.token = old.token",
                Tuple.of((double) grace.toSeconds(), batch)).map(rows -> rows.rowCount());
    }

    /** True when {@code failure} is the unique index on (scope, idem_key) refusing a second record. */
    public static boolean isDuplicateKey(Throwable failure) {
        return failure instanceof PgException pg && "23505".equals(pg.getSqlState())
                && pg.getConstraint() != null && pg.getConstraint().startsWith("idempotency_keys");
    }
}
