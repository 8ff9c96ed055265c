package io.orderflow.webhooks;

import static io.orderflow.support.OrderMother.createOrder;
import static io.orderflow.support.OrderMother.newKey;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.orderflow.common.Spans;
import io.orderflow.support.Auth;
import io.orderflow.support.Await;
import io.orderflow.support.TracedWithLinger;
import io.orderflow.support.WebhookReceiver;
import io.orderflow.support.WebhookReceiver.Answer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Tracing on, the spans kept in memory: each attempt to deliver a webhook is one CLIENT span {@code webhook deliver}
 * naming the endpoint, the event and the attempt, with the answer's status code, and the only span of its request;
 * the attempt a real receiver answered 503 is a failed span, its retry answered 200 is not. The attempts continue
 * the trace of the request that made the change (its context travels with the event), whose {@code traceparent}
 * the receiver is sent; an operator's retry is a child of the retry request's span.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(TracedWithLinger.class)
class WebhookTracingTest {

    /** What the Vert.x HTTP client's own span of a request would name. */
    private static final AttributeKey<String> URL_FULL = AttributeKey.stringKey("url.full");

    @Inject
    InMemorySpanExporter spans;

    private String endpoint;

    /** An endpoint left enabled would be sent every later test's events. */
    @AfterEach
    void deleteEndpoint() {
        if (endpoint != null) {
            Auth.operator().delete("/webhook-endpoints/" + endpoint).then().statusCode(204);
        }
    }

    @Test
    void shouldTraceEachDeliveryAttemptTheOneAnswered503FailedItsRetryNot() {
        Set<String> refusedOnce = ConcurrentHashMap.newKeySet();
        try (WebhookReceiver receiver = WebhookReceiver.start(
                request -> Answer.of(refusedOnce.add(request.header("webhook-id")) ? 503 : 200))) {
            endpoint = WebhooksTest.register(newKey(), Map.of("url", receiver.url("/traced"))).then().statusCode(201)
                    .extract().path("id");
            String id = createOrder();
            Await.until(() -> receiver.about(id).stream().anyMatch(request -> request.answered() == 200),
                    "the created event delivered on its second attempt");
            String event = receiver.about(id).get(0).header("webhook-id");
            Await.until(() -> attempts(event).size() == 2, "the spans of both attempts");

            List<SpanData> attempts = attempts(event);
            SpanData refused = attempts.get(0);
            SpanData accepted = attempts.get(1);
            for (SpanData attempt : attempts) {
                assertEquals(SpanKind.CLIENT, attempt.getKind());
                assertEquals(endpoint, attempt.getAttributes().get(WebhookSender.ENDPOINT_ID));
                assertTrue(SpanId.isValid(attempt.getParentSpanId()), "an attempt continues the change's trace");
                assertEquals(creation(attempt.getTraceId()).map(SpanData::getName), Optional.of("POST /orders"),
                        "the request that created the order, whose event this is");
            }
            String traceparent = receiver.about(id).get(0).header("traceparent");
            assertTrue(traceparent != null && traceparent.startsWith("00-" + refused.getTraceId() + "-"),
                    "the receiver is told the trace: " + traceparent);
            assertEquals(1L, refused.getAttributes().get(WebhookSender.ATTEMPT));
            assertEquals(503L, refused.getAttributes().get(WebhookSender.STATUS_CODE));
            assertEquals(StatusCode.ERROR, refused.getStatus().getStatusCode());
            assertEquals("503", refused.getAttributes().get(Spans.ERROR_TYPE));
            assertEquals(2L, accepted.getAttributes().get(WebhookSender.ATTEMPT));
            assertEquals(200L, accepted.getAttributes().get(WebhookSender.STATUS_CODE));
            assertEquals(StatusCode.UNSET, accepted.getStatus().getStatusCode(), "not failed");
            assertNull(accepted.getAttributes().get(Spans.ERROR_TYPE));
            assertEquals(List.of(), spans.getFinishedSpanItems().stream()
                    .filter(span -> receiver.url("/traced").equals(span.getAttributes().get(URL_FULL))).toList(),
                    "no other span of the requests (the Vert.x client's own is off)");

            Auth.operator().post("/webhook-endpoints/" + endpoint + "/deliveries/" + event + "/retry").then()
                    .statusCode(200).body("attempt", equalTo(3));
            Await.until(() -> attempts(event).size() == 3 && retryRequest().isPresent(), "the manual retry's spans");
            SpanData manual = attempts(event).get(2);
            assertEquals(retryRequest().orElseThrow().getSpanId(), manual.getParentSpanId(),
                    "an operator's retry hangs under the request's span");
            assertEquals(200L, manual.getAttributes().get(WebhookSender.STATUS_CODE));
        }
    }

    /** The server span of trace {@code traceId}'s request. */
    private Optional<SpanData> creation(String traceId) {
        return spans.getFinishedSpanItems().stream()
                .filter(span -> span.getKind() == SpanKind.SERVER && span.getTraceId().equals(traceId)).findFirst();
    }

    private Optional<SpanData> retryRequest() {
        return spans.getFinishedSpanItems().stream()
                .filter(span -> span.getKind() == SpanKind.SERVER && span.getName().endsWith("/retry")).findFirst();
    }

    /** The finished spans of the attempts to deliver {@code event}, by attempt number. */
    private List<SpanData> attempts(String event) {
        return spans.getFinishedSpanItems().stream().filter(span -> span.getName().equals(WebhookSender.SPAN)
                && event.equals(span.getAttributes().get(WebhookSender.EVENT_ID)))
                .sorted(Comparator.comparing(span -> span.getAttributes().get(WebhookSender.ATTEMPT))).toList();
    }
}
