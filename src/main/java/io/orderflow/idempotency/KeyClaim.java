package io.orderflow.idempotency;

import io.orderflow.common.Reply;
import java.time.Instant;
import java.util.UUID;

/**
 * A request's claim on its idempotency key: who and what it is for (scope), the key, the body's fingerprint and
 * when the record will expire. A business write that records the claim in its own statement calls
 * {@link #recordWith}; the gate stores the outcome itself otherwise.
 */
public final class KeyClaim {

    private final String scope;
    private final String key;
    private final String fingerprint;
    private final Tier tier;
    private final Instant createdAt;
    private final Instant expiresAt;
    private final UUID orderId;
    private boolean recorded;

    KeyClaim(String scope, String key, String fingerprint, Tier tier, Instant createdAt, Instant expiresAt,
            UUID orderId) {
        this.scope = scope;
        this.key = key;
        this.fingerprint = fingerprint;
        this.tier = tier;
        this.createdAt = createdAt;
        this.expiresAt = expiresAt;
        this.orderId = orderId;
    }

    /** The record to write in the same statement as the business change that produced {@code reply}. */
    public DedupRecord recordWith(Reply reply, UUID orderId) {
        return record(reply, orderId);
    }

    /** Called once the statement carrying {@link #recordWith}'s record has committed. */
    public void markRecorded() {
        recorded = true;
    }

    boolean isRecorded() {
        return recorded;
    }

    /** The record of an outcome that wrote no business row (a duplicate, a business failure). */
    DedupRecord record(Reply reply) {
        return record(reply, orderId);
    }

    DedupRecord record(Reply reply, UUID orderId) {
        DedupRecord.State state = reply.status() < 400 ? DedupRecord.State.DONE : DedupRecord.State.FAILED;
        return new DedupRecord(scope, key, tier.name(), state, fingerprint, orderId, reply, createdAt, expiresAt);
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
