package io.orderflow.idempotency;

import com.fasterxml.jackson.databind.JsonNode;
import io.orderflow.common.Reply;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.UUID;

/**
 * The first outcome of a keyed request, kept so that every repeat gets it back: either the business row its write
 * produced ({@code result}, rendered by the request's operation) or a rendered answer ({@code reply}) for an
 * outcome that wrote no business row.
 */
public record DedupRecord(String scope, String key, String tier, State state, String fingerprint, UUID orderId,
        String result, Reply reply, Instant createdAt, Instant expiresAt) {

    public enum State {
        PENDING, DONE, FAILED, EXPIRED
    }

    static DedupRecord of(IdempotencyKey row) {
        return new DedupRecord(row.scope, row.idemKey, row.tier, State.valueOf(row.state), row.fingerprint,
                row.orderId, isAbsent(row.result) ? null : row.result.toString(),
                isAbsent(row.reply) ? null : ReplyCodec.decode(new JsonObject(row.reply.toString())), row.createdAt,
                row.expiresAt);
    }

    private static boolean isAbsent(JsonNode json) {
        return json == null || json.isNull();
    }

    /** Whether the record holds an answer yet. */
    boolean answered() {
        return result != null || reply != null;
    }
}
