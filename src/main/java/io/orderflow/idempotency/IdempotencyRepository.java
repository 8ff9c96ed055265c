package io.orderflow.idempotency;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.DatabaseFailures;
import io.orderflow.common.Db;
import io.orderflow.common.GroupedWrites;
import io.orderflow.common.PostgresArrays;
import io.orderflow.common.ResendSafety;
import io.orderflow.common.json.PgTimestamps;
import io.orderflow.common.problem.ProblemMapper;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

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

    /**
     * The same for many records at once (group commit): the records' columns as arrays, one commit for all. Each
     * row is stored or meets its winner on its own; the rows of one batch have distinct keys (the lane sees to it).
     */
    private static final String INSERT_OR_FIND_MANY = "with b as (select u.n, u.scope, u.idem_key, u.tier, u.state,"
            + " u.fingerprint, cast(u.order_id as uuid) as order_id, cast(u.reply as jsonb) as reply,"
            + " cast(u.created_at as timestamptz) as created_at, cast(u.expires_at as timestamptz) as expires_at"
            + " from unnest(cast(cast(:scope as text) as text[]), cast(cast(:key as text) as text[]),"
            + " cast(cast(:tier as text) as text[]), cast(cast(:state as text) as text[]),"
            + " cast(cast(:fingerprint as text) as text[]), cast(cast(:orderId as text) as text[]),"
            + " cast(cast(:reply as text) as text[]), cast(cast(:created as text) as text[]),"
            + " cast(cast(:expires as text) as text[])) with ordinality"
            + " as u(scope, idem_key, tier, state, fingerprint, order_id, reply, created_at, expires_at, n)),"
            + " stored as (insert into idempotency_keys (scope, idem_key, tier, state, fingerprint, order_id, reply,"
            + " created_at, expires_at) select scope, idem_key, tier, state, fingerprint, order_id, reply, created_at,"
            + " expires_at from b order by n on conflict (scope, idem_key) do nothing returning scope, idem_key)"
            + " select cast(b.n as int) as n, (s.idem_key is not null)::int as inserted, to_jsonb(k)::text as winner"
            + " from b left join stored s on s.scope = b.scope and s.idem_key = b.idem_key"
            + " left join idempotency_keys k on k.scope = b.scope and k.idem_key = b.idem_key";

    /** Keys in one order for every batch, so two batches that share keys (two replicas) take their locks alike. */
    private static final Comparator<DedupRecord> BY_KEY = Comparator.comparing(DedupRecord::scope)
            .thenComparing(DedupRecord::key);

    private final Db db;
    private final ObjectReader rows;
    private final GroupedWrites<String, DedupRecord, Object[]> records;
    private final boolean grouped;

    public IdempotencyRepository(Db db, ObjectMapper json, IdempotencyConfig config, MeterRegistry registry) {
        this.db = db;
        this.rows = PgTimestamps.rowReader(json, IdempotencyKey.class);
        IdempotencyConfig.Records settings = config.records();
        this.grouped = settings.groupCommit();
        this.records = new GroupedWrites<>("orderflow.idempotency.batch", "dedup records", this::insertOrFindMany,
                settings::maxRows, settings::maxInFlight, settings::maxWaiting, settings::maxWait, registry);
    }

    public Uni<DedupRecord> find(String scope, String key) {
        return db.run(ResendSafety.READ, session -> session.get(IdempotencyKey.class, new IdempotencyKey.Key(scope, key)))
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
        Uni<Object[]> row = grouped
                ? records.submit(INSERT_OR_FIND_MANY, new IdempotencyKey.Key(record.scope(), record.key()), record,
                        () -> insertOrFindAlone(record))
                : insertOrFindAlone(record);
        return row.chain(found -> {
            if (((Number) found[0]).intValue() == 1) {
                return Uni.createFrom().nullItem();
            }
            return found[1] != null ? Uni.createFrom().item(parse((String) found[1]))
                    : find(record.scope(), record.key());
        });
    }

    /** The store-or-find statement of one record: {@code inserted, winner}. */
    private Uni<Object[]> insertOrFindAlone(DedupRecord record) {
        return db.run(ResendSafety.KEYED, session -> session.createNativeQuery(INSERT_OR_FIND,
                session.getResultSetMapping(Object[].class, IdempotencyKey.INSERTED_OR_WINNER))
                .setParameter("scope", record.scope()).setParameter("key", record.key())
                .setParameter("tier", record.tier()).setParameter("state", record.state().name())
                .setParameter("fingerprint", record.fingerprint()).setParameter("orderId", record.orderId())
                .setParameter("reply", ReplyCodec.encode(record.reply()).encode())
                .setParameter("created", record.createdAt()).setParameter("expires", record.expiresAt())
                .getSingleResult());
    }

    /** The store-or-find statement of two or more records with distinct keys: each one's row by its key. */
    private Uni<Map<Object, Object[]>> insertOrFindMany(String sql, List<DedupRecord> batch) {
        List<DedupRecord> sorted = batch.stream().sorted(BY_KEY).toList();
        return db.run(ResendSafety.KEYED, session -> session.createNativeQuery(sql,
                session.getResultSetMapping(Object[].class, IdempotencyKey.BATCH_INSERTED_OR_WINNER))
                .setParameter("scope", column(sorted, DedupRecord::scope))
                .setParameter("key", column(sorted, DedupRecord::key))
                .setParameter("tier", column(sorted, DedupRecord::tier))
                .setParameter("state", column(sorted, r -> r.state().name()))
                .setParameter("fingerprint", column(sorted, DedupRecord::fingerprint))
                .setParameter("orderId", column(sorted, DedupRecord::orderId))
                .setParameter("reply", column(sorted, r -> ReplyCodec.encode(r.reply()).encode()))
                .setParameter("created", column(sorted, DedupRecord::createdAt))
                .setParameter("expires", column(sorted, DedupRecord::expiresAt))
                .getResultList()).map(found -> {
                    Map<Object, Object[]> byKey = new HashMap<>();
                    for (Object[] row : found) {
                        DedupRecord record = sorted.get(((Number) row[0]).intValue() - 1);
                        byKey.put(new IdempotencyKey.Key(record.scope(), record.key()), new Object[] { row[1], row[2] });
                    }
                    return byKey;
                });
    }

    private static String column(List<DedupRecord> batch, Function<DedupRecord, Object> value) {
        return PostgresArrays.literal(batch.stream().map(value).toList());
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

    /** True when {@code failure} is the unique index on (scope, idem_key) refusing a second record. */
    public static boolean isDuplicateKey(Throwable failure) {
        Throwable cause = ProblemMapper.unwrap(failure);
        if (!DatabaseFailures.isUniqueViolation(cause)) {
            return false;
        }
        String constraint = DatabaseFailures.constraint(cause);
        return constraint != null && constraint.startsWith("idempotency_keys");
    }

    private DedupRecord parse(String rowJson) {
        try {
            return DedupRecord.of(rows.readValue(rowJson));
        } catch (IOException e) {
            throw new UncheckedIOException("an idempotency_keys row that is not the table's JSON", e);
        }
    }
}
