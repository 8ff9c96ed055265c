package io.orderflow.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import io.orderflow.common.json.PgTimestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A registered endpoint as stored ({@code webhook_endpoints}), read from its row's JSON ({@code to_jsonb}), which is
 * also what an idempotency record keeps of a creation or a rotation.
 */
record WebhookEndpoint(UUID id, String url, List<String> types, String description, String secret,
        String previousSecret, Instant previousSecretUntil, String status, String disabledReason, Instant createdAt) {

    static WebhookEndpoint fromRow(JsonNode row) {
        List<String> types = new ArrayList<>();
        row.path("types").forEach(type -> types.add(type.asText()));
        return new WebhookEndpoint(UUID.fromString(row.get("id").asText()), row.get("url").asText(),
                List.copyOf(types), text(row, "description"), row.get("secret").asText(),
                text(row, "previous_secret"), instant(row, "previous_secret_until"), row.get("status").asText(),
                text(row, "disabled_reason"), instant(row, "created_at"));
    }

    /** The secrets that sign a delivery at {@code now}: the current one, and the rotated one during the overlap. */
    List<String> signingSecrets(Instant now) {
        return previousSecret != null && previousSecretUntil != null && now.isBefore(previousSecretUntil)
                ? List.of(secret, previousSecret) : List.of(secret);
    }

    private static String text(JsonNode row, String field) {
        JsonNode value = row.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    private static Instant instant(JsonNode row, String field) {
        String text = text(row, field);
        return text == null ? null : PgTimestamps.parse(text);
    }
}
