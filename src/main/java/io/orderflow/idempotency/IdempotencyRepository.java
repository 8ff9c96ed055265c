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

    private final Db db;

    public IdempotencyRepository(Db db) {
        this.db = db;
    }

    public Uni<DedupRecord> find(String scope, String key) {
        return db.execute("select * from idempotency_keys where scope = $1 and idem_key = $2", Tuple.of(scope, key))
                .map(rows -> rows.size() == 0 ? null : DedupRecord.from(rows.iterator().next()));
    }

    /** Stores an outcome that changed no business row; false when the key was recorded first by someone else. */
    public Uni<Boolean> insertIfAbsent(DedupRecord record) {
        String sql = DedupRecord.insertSql(0, null) + " on conflict (scope, idem_key) do nothing";
        return db.execute(sql, Tuple.from(record.params())).map(rows -> rows.rowCount() == 1);
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

    /** True when {@code failure} is the unique index on (scope, idem_key) refusing a second record. */
    public static boolean isDuplicateKey(Throwable failure) {
        return failure instanceof PgException pg && "23505".equals(pg.getSqlState())
                && pg.getConstraint() != null && pg.getConstraint().startsWith("idempotency_keys");
    }
}
