package io.orderflow.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.orderflow.support.Await;
import io.orderflow.support.Sql;
import io.orderflow.support.TracedWithLinger;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Tracing on, the spans kept in memory: the rounds that poll for work (the feed's sequencer, the relay to the stream,
 * the webhook dispatcher) make no spans. With a span per statement, a service at rest exported little but its polls.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(TracedWithLinger.class)
class IdlePollsTracingTest {

    private static final AttributeKey<String> STATEMENT = AttributeKey.stringKey("db.statement");
    private static final AttributeKey<String> QUERY = AttributeKey.stringKey("db.query.text");

    @Inject
    InMemorySpanExporter spans;

    @Test
    void shouldMakeNoSpanForARoundThatPolls() {
        spans.reset();
        String before = Sql.string("select cast(updated_at as text) from event_cursors where name = 'redis-stream'");
        // the relay takes its turn every round, found work or not: three rounds pass
        for (int i = 0; i < 3; i++) {
            String seen = Sql.string("select cast(updated_at as text) from event_cursors where name = 'redis-stream'");
            Await.until(() -> !seen.equals(Sql.string("select cast(updated_at as text) from event_cursors where"
                    + " name = 'redis-stream'")), "a relay round");
        }
        List<String> polls = spans.getFinishedSpanItems().stream().map(IdlePollsTracingTest::statement)
                .filter(sql -> sql != null && (sql.contains("event_cursors") || sql.contains("advisory")
                        || sql.contains("webhook_dispatchers")))
                .map(sql -> sql.substring(0, Math.min(60, sql.length()))).toList();
        assertEquals(List.of(), polls, "rounds since " + before);
    }

    private static String statement(SpanData span) {
        String sql = span.getAttributes().get(QUERY);
        return sql != null ? sql : span.getAttributes().get(STATEMENT);
    }
}
