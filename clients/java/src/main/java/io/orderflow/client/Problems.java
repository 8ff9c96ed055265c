package io.orderflow.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** Reads a refusal's body as an RFC 9457 problem; anything else becomes {@code about:blank} with its status. */
final class Problems {

    private static final Set<String> STANDARD = Set.of("type", "title", "status", "detail");

    private Problems() {
    }

    static ProblemException.Problem read(int status, String body, ObjectMapper mapper) {
        JsonNode json = parse(body, mapper);
        if (json == null || !json.path("type").isTextual()) {
            String detail = body == null || body.isBlank() ? null : body.substring(0, Math.min(body.length(), 300));
            return new ProblemException.Problem(ProblemTypes.ABOUT_BLANK, "HTTP " + status, status, detail, Map.of());
        }
        Map<String, Object> members = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> fields = json.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            if (!STANDARD.contains(field.getKey())) {
                members.put(field.getKey(), mapper.convertValue(field.getValue(), Object.class));
            }
        }
        return new ProblemException.Problem(json.get("type").asText(), json.path("title").asText(null),
                json.path("status").asInt(status), json.path("detail").asText(null), Map.copyOf(members));
    }

    static ProblemException exception(String operation, ProblemException.Problem problem, String key, int attempts) {
        return ProblemTypes.FEED_CURSOR_EXPIRED.equals(problem.type)
                ? new FeedCursorExpiredException(operation, problem, key, attempts)
                : new ProblemException(operation, problem, key, attempts);
    }

    private static JsonNode parse(String body, ObjectMapper mapper) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            JsonNode json = mapper.readTree(body);
            return json.isObject() ? json : null;
        } catch (IOException e) {
            return null;
        }
    }
}
