package io.orderflow.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.provider.EventFormatProvider;
import io.cloudevents.jackson.JsonFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The outbox's events as the tests read them: straight from the table, parsed by the CloudEvents SDK. */
public final class OutboxEvents {

    private static final ObjectMapper JSON = new ObjectMapper();

    private OutboxEvents() {
    }

    /** The payloads of the events of {@code aggregateId} (an order id), in the order they were written. */
    public static List<String> of(String aggregateId) {
        return Sql.strings("select payload::text from outbox where aggregateid = ? order by seq", aggregateId);
    }

    /**
     * {@code json} read as a structured-mode CloudEvent by the SDK's JSON format, which refuses an envelope without
     * the required attributes or with an unknown spec version.
     */
    public static CloudEvent cloudEvent(String json) {
        return EventFormatProvider.getInstance().resolveFormat(JsonFormat.CONTENT_TYPE)
                .deserialize(json.getBytes(StandardCharsets.UTF_8));
    }

    public static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
