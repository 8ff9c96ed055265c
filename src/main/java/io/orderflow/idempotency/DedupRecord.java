package io.orderflow.idempotency;

import io.orderflow.common.Db;
import io.orderflow.common.Reply;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Row;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One row of {@code idempotency_keys}: the first outcome of a keyed request, stored so that every repeat gets it
 * back. Repositories that change business rows append {@link #INSERT} to the same statement, so the record and
 * the change commit together or not at all.
 */
public record DedupRecord(String scope, String key, String tier, State state, String fingerprint, UUID orderId,
        Reply reply, Instant createdAt, Instant expiresAt) {

    public enum State {
        PENDING, DONE, FAILED, EXPIRED
    }

    /** Column list and placeholders; {@code $n} numbering starts at the offset given to {@link #insertSql}. */
    private static final String COLUMNS = "scope, idem_key, tier, state, fingerprint, order_id, response_status, "
            + "response_content_type, response_headers, response_body, created_at, expires_at";
    public static final int PARAMS = 12;

    /** {@code insert into idempotency_keys (...) values ($offset+1, ...)} or, with {@code fromCte}, select from it. */
    public static String insertSql(int offset, String fromCte) {
        StringBuilder values = new StringBuilder();
        for (int i = 1; i <= PARAMS; i++) {
            values.append(i == 1 ? "" : ", ").append('$').append(offset + i);
        }
        String into = "insert into idempotency_keys (" + COLUMNS + ") ";
        return fromCte == null ? into + "values (" + values + ")" : into + "select " + values + " from " + fromCte;
    }

    public List<Object> params() {
        List<Object> p = new ArrayList<>(PARAMS);
        p.add(scope);
        p.add(key);
        p.add(tier);
        p.add(state.name());
        p.add(fingerprint);
        p.add(orderId);
        p.add(reply == null ? null : reply.status());
        p.add(reply == null ? null : reply.contentType());
        p.add(reply == null ? null : new JsonObject(Map.<String, Object>copyOf(reply.headers())));
        p.add(reply == null ? null : Buffer.buffer(reply.body()));
        p.add(Db.ts(createdAt));
        p.add(Db.ts(expiresAt));
        return p;
    }

    public static DedupRecord from(Row row) {
        Integer status = row.getInteger("response_status");
        Reply reply = null;
        if (status != null) {
            JsonObject headers = (JsonObject) row.getValue("response_headers");
            Map<String, String> h = new java.util.LinkedHashMap<>();
            if (headers != null) {
                headers.forEach(e -> h.put(e.getKey(), String.valueOf(e.getValue())));
            }
            reply = new Reply(status, row.getString("response_content_type"), h,
                    row.getBuffer("response_body").getBytes());
        }
        return new DedupRecord(row.getString("scope"), row.getString("idem_key"), row.getString("tier"),
                State.valueOf(row.getString("state")), row.getString("fingerprint"), row.getUUID("order_id"), reply,
                Db.instant(row, "created_at"), Db.instant(row, "expires_at"));
    }
}
