package io.orderflow.common;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A fully rendered HTTP answer: status, the headers that belong to the outcome (Location, ETag, Retry-After) and
 * the exact body bytes. Replies are what the idempotency layer stores and replays, so a repeat gets the same
 * bytes as the first request.
 */
public record Reply(int status, String contentType, Map<String, String> headers, byte[] body) {

    public static final String REPLAYED = "Idempotent-Replayed";

    public Reply {
        headers = Map.copyOf(headers);
    }

    public Reply withHeader(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new Reply(status, contentType, more, body);
    }

    public Reply replayed() {
        return withHeader(REPLAYED, "true");
    }

    /**
     * Whether the answer carries something no store may keep ({@code Cache-Control: no-store}: a payment's client
     * secret): the idempotency layer keeps it out of Redis, and a repeat is rendered from the stored row instead.
     */
    public boolean isNoStore() {
        return "no-store".equals(headers.get("Cache-Control"));
    }

    /**
     * This JSON object answer with {@code members} added (replacing any of the same name), marked
     * {@code Cache-Control: no-store}: what is added is never stored (a payment credential read again for a replay).
     */
    public Reply withNeverStoredMembers(Map<String, Object> members) {
        JsonObject json = new JsonObject(Buffer.buffer(body));
        members.forEach(json::put);
        return new Reply(status, contentType, headers, json.toBuffer().getBytes()).withHeader("Cache-Control",
                "no-store");
    }

    public boolean isReplayed() {
        return "true".equals(headers.get(REPLAYED));
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /**
     * Sends this answer ahead of the REST layer, with {@code Connection: close}, and closes the connection after it:
     * the edge's refusals, whose request may not have been read to its end. (Vert.x keeps a keep-alive connection
     * open whatever the response's Connection header says.) The rest of the refused body is read and dropped until
     * the client has sent it, for at most {@link #LINGER_MS}: a connection closed while unread input waits is reset
     * by the kernel, and a client still sending its body could lose the answer it was sent. That rest is lost by
     * design, so its loss is no failure of the request.
     */
    public void endClosing(HttpServerRequest request) {
        request.exceptionHandler(lostRest -> {
        });
        HttpServerResponse response = request.response();
        response.setStatusCode(status).putHeader("Content-Type", contentType).putHeader("Connection", "close");
        headers.forEach(response::putHeader);
        response.end(Buffer.buffer(body)).onComplete(written -> closeAfterInput(request));
    }

    /** How long a refused request's remaining body is read and dropped before its connection is closed anyway. */
    static final long LINGER_MS = 2000;

    private static void closeAfterInput(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        Context context = Vertx.currentContext();
        if (request.isEnded() || context == null) {
            response.close();
            return;
        }
        long timer = context.owner().setTimer(LINGER_MS, expired -> response.close());
        request.handler(dropped -> {
        }).endHandler(ended -> {
            context.owner().cancelTimer(timer);
            response.close();
        });
        request.resume();
    }

    public Response toResponse() {
        Response.ResponseBuilder builder = Response.status(status).type(contentType).entity(body);
        headers.forEach(builder::header);
        return builder.build();
    }
}
