package io.orderflow.idempotency;

import io.orderflow.common.Reply;
import io.orderflow.common.SameStatementWrite;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * A request's claim on its idempotency key: who and what it is for (scope), the key, the body's fingerprint and
 * when the record will expire. A business write carries {@link #sameStatementRecord} in its own statement and
 * calls {@link #markRecorded}; the gate stores the outcome itself otherwise.
 */
public final class KeyClaim {

    private static final Map<String, String> RECORD_TYPES = Map.of("k_scope", "text", "k_key", "text", "k_tier",
            "text", "k_fingerprint", "text", "k_created", "timestamptz", "k_expires", "timestamptz");

    private final String scope;
    private final String key;
    private final String fingerprint;
    private final RetentionTier tier;
    private final Instant createdAt;
    private final Instant expiresAt;
    private final UUID orderId;
    private boolean recorded;
    private volatile boolean answeredBefore;

    KeyClaim(String scope, String key, String fingerprint, RetentionTier tier, Instant createdAt, Instant expiresAt,
            UUID orderId) {
        this.scope = scope;
        this.key = key;
        this.fingerprint = fingerprint;
        this.tier = tier;
        this.createdAt = createdAt;
        this.expiresAt = expiresAt;
        this.orderId = orderId;
    }

    /**
     * The idempotency record, written by the business statement itself: it keeps the business row the statement
     * wrote (its {@code to_jsonb}) as the request's result, so the record and the change commit together or not at
     * all, in one round trip.
     */
    public SameStatementWrite sameStatementRecord() {
        return new SameStatementWrite() {
            @Override
            public String sql(String rows) {
                return "insert into idempotency_keys (scope, idem_key, tier, state, fingerprint, order_id, result,"
                        + " created_at, expires_at) select :k_scope, :k_key, :k_tier, 'DONE', :k_fingerprint, r.id,"
                        + " to_jsonb(r), cast(:k_created as timestamptz), cast(:k_expires as timestamptz) from "
                        + rows + " r";
            }

            @Override
            public Map<String, Object> parameters() {
                return Map.of("k_scope", scope, "k_key", key, "k_tier", tier.name(), "k_fingerprint", fingerprint,
                        "k_created", createdAt, "k_expires", expiresAt);
            }

            @Override
            public String batchSql(String rows, String values) {
                return "insert into idempotency_keys (scope, idem_key, tier, state, fingerprint, order_id, result,"
                        + " created_at, expires_at) select v.k_scope, v.k_key, v.k_tier, 'DONE', v.k_fingerprint, r.id,"
                        + " to_jsonb(r), v.k_created, v.k_expires from " + rows + " r join " + values
                        + " v on v.id = r.id";
            }

            @Override
            public Map<String, String> parameterTypes() {
                return RECORD_TYPES;
            }
        };
    }

    /** Called once the statement carrying {@link #sameStatementRecord} has committed. */
    public void markRecorded() {
        recorded = true;
    }

    boolean isRecorded() {
        return recorded;
    }

    /**
     * Called when this request is answered with the key's stored first answer (Redis, PostgreSQL or a racer's
     * record): its key had been answered before. A state-machine duplicate under a new key is not that: it is the
     * key's first answer, even though it tells the client the order had already moved.
     */
    void markAnsweredBefore() {
        answeredBefore = true;
    }

    boolean wasAnsweredBefore() {
        return answeredBefore;
    }

    /** The record of an outcome that wrote no business row (a duplicate, a business failure). */
    DedupRecord record(Reply reply) {
        DedupRecord.State state = reply.status() < 400 ? DedupRecord.State.DONE : DedupRecord.State.FAILED;
        return new DedupRecord(scope, key, tier.name(), state, fingerprint, orderId, null, reply, createdAt,
                expiresAt);
    }

    public String scope() {
        return scope;
    }

    public String key() {
        return key;
    }

    public String fingerprint() {
        return fingerprint;
    }

    public Instant expiresAt() {
        return expiresAt;
    }

    /** The key as the history records it: which request caused a transition. */
    public String requestKey() {
        return key;
    }
}
