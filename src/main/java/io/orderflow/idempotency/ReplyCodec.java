package io.orderflow.idempotency;

import io.orderflow.common.Reply;
import io.vertx.core.json.JsonObject;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one encoding of a stored answer, in PostgreSQL (idempotency_keys.reply) and in the Redis cache alike:
 * {@code {"s": status, "c": content type, "h": {headers}, "b": base64 body}}.
 */
final class ReplyCodec {

    private ReplyCodec() {
    }

    static JsonObject encode(Reply reply) {
        return new JsonObject().put("s", reply.status()).put("c", reply.contentType())
                .put("h", new JsonObject(Map.<String, Object>copyOf(reply.headers())))
                .put("b", Base64.getEncoder().encodeToString(reply.body()));
    }

    static Reply decode(JsonObject stored) {
        Map<String, String> headers = new LinkedHashMap<>();
        JsonObject h = stored.getJsonObject("h");
        if (h != null) {
            h.forEach(e -> headers.put(e.getKey(), String.valueOf(e.getValue())));
        }
        return new Reply(stored.getInteger("s"), stored.getString("c"), headers,
                Base64.getDecoder().decode(stored.getString("b")));
    }
}
