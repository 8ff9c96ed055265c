package io.orderflow.payment;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.okJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static io.orderflow.support.OrderMother.AMOUNT;
import static io.orderflow.support.OrderMother.createOrder;
import static io.orderflow.support.OrderMother.newKey;
import static io.orderflow.support.OrderMother.postKeyed;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.orderflow.common.Spans;
import io.orderflow.payment.spi.ProviderSpans;
import io.orderflow.payment.stripe.StripeFixtures;
import io.orderflow.payment.stripe.StripeProvider;
import io.orderflow.support.Await;
import io.orderflow.support.CapturedLog;
import io.orderflow.support.TracedWithLinger;
import io.prometheus.client.exemplars.ExemplarSampler;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Tracing turned on (as an OTLP endpoint turns it on in production), with the spans kept in memory: one PAY through
 * Stripe (played by the sandbox's HTTP server) is one trace, a tree under the request's server span, holding the
 * transition statement's SQL span, the Redis commands' spans and the provider call's span; and the request's log
 * lines carry its trace id.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(TracedWithLinger.class)
class TracingTest extends SandboxedProviderTest {

    /**
     * "redis" on a Redis command's span. A SQL statement's carries the database's name instead of "postgresql":
     * Quarkus 3.33 fills it from Vert.x's db.instance tag; its operation and table are right.
     */
    private static final AttributeKey<String> DB_SYSTEM = AttributeKey.stringKey("db.system");
    private static final AttributeKey<String> DB_STATEMENT = AttributeKey.stringKey("db.statement");
    private static final AttributeKey<String> DB_OPERATION = AttributeKey.stringKey("db.operation");
    private static final AttributeKey<String> DB_TABLE = AttributeKey.stringKey("db.sql.table");
    /** What only the transition statement does, for one order or many (order/persistence/TransitionSql). */
    private static final String TRANSITION = "update orders o set status = r.to_status";

    @Inject
    InMemorySpanExporter spans;

    @Inject
    StripeProvider stripe;

    @Inject
    Optional<ExemplarSampler> exemplars;

    @Override
    protected String provider() {
        return StripeProvider.NAME;
    }

    /** A first call through stripe-java can outlast the sandbox's 1 s call timeout (class loading): made before. */
    @BeforeEach
    void warmUpStripeJava() {
        server.stubFor(get("/v1/payment_intents/pi_warm_up").willReturn(okJson(StripeFixtures.intent("pi_warm_up",
                "requires_payment_method", "1", "eur", null))));
        await(stripe.queryPayment("pi_warm_up"));
        restart();
    }

    @Test
    void shouldTraceAPayFromItsRequestThroughTheTransitionStatementToTheProviderCall() {
        String id = createOrder();
        String intent = "pi_traced_" + id.substring(0, 8);
        server.stubFor(post("/v1/payment_intents").willReturn(okJson(StripeFixtures.intent(intent,
                "requires_payment_method", String.valueOf(AMOUNT), "eur", null))));
        spans.reset();
        List<String> transitionLines;
        try (CapturedLog log = CapturedLog.start()) {
            postKeyed(id, "pay", Map.of("provider", "stripe"), newKey()).then().statusCode(200)
                    .body("payment.providerReference", is(intent));
            Await.until(() -> serverSpanOfPay().isPresent(), "the server span of the PAY");
            transitionLines = log.formatted("io.orderflow.transitions",
                    ConfigProvider.getConfig().getValue("quarkus.log.console.format", String.class));
        }
        SpanData request = serverSpanOfPay().orElseThrow();
        List<SpanData> trace = spans.getFinishedSpanItems().stream()
                .filter(span -> span.getTraceId().equals(request.getTraceId())).toList();

        SpanData statement = only(trace, span -> span.getKind() == SpanKind.CLIENT
                && String.valueOf(span.getAttributes().get(DB_STATEMENT)).contains(TRANSITION), "transition statement");
        assertEquals("UPDATE", statement.getAttributes().get(DB_OPERATION));
        assertEquals("orders", statement.getAttributes().get(DB_TABLE));
        assertTrue(trace.stream().anyMatch(span -> span.getKind() == SpanKind.CLIENT
                && "redis".equals(span.getAttributes().get(DB_SYSTEM))), "the idempotency gate's Redis commands");
        SpanData call = only(trace, span -> span.getName().equals("stripe create-payment"), "provider call");
        assertEquals("stripe", call.getAttributes().get(ProviderSpans.PROVIDER));
        assertEquals("create-payment", call.getAttributes().get(ProviderSpans.OPERATION));
        assertEquals("PENDING", call.getAttributes().get(ProviderSpans.OUTCOME));

        assertFalse(SpanId.isValid(request.getParentSpanId()), "the request's span is the trace's root");
        Map<String, SpanData> byId = trace.stream().collect(Collectors.toMap(SpanData::getSpanId, Function.identity()));
        for (SpanData span : trace) {
            assertTrue(descendsFrom(span, request, byId), span.getName() + " hangs under the request's span");
        }

        assertEquals(1, transitionLines.size(), "the PAY's transition line: " + transitionLines);
        assertTrue(transitionLines.get(0).contains("traceId=" + request.getTraceId() + " spanId="),
                "the log line names the trace: " + transitionLines.get(0));
    }

    @Test
    void shouldSampleExemplarsWhileTracing() {
        assertTrue(exemplars.isPresent(), "a service that traces names a request's trace beside its metrics");
    }

    @Test
    void shouldMarkAProviderCallThatTheProviderRefusedFailedWithItsCode() {
        String id = createOrder();
        server.stubFor(post("/v1/payment_intents").willReturn(aResponse().withStatus(402)
                .withHeader("Content-Type", "application/json").withBody("{\"error\":{\"type\":\"card_error\","
                        + "\"code\":\"card_declined\",\"message\":\"Your card was declined.\"}}")));
        spans.reset();
        postKeyed(id, "pay", Map.of("provider", "stripe"), newKey());
        Await.until(() -> spans.getFinishedSpanItems().stream()
                .anyMatch(span -> span.getName().equals("stripe create-payment")), "the provider call's span");
        SpanData call = spans.getFinishedSpanItems().stream()
                .filter(span -> span.getName().equals("stripe create-payment")).findFirst().orElseThrow();
        assertEquals(StatusCode.ERROR, call.getStatus().getStatusCode(), call.toString());
        assertEquals("card_declined", call.getAttributes().get(Spans.ERROR_TYPE), call.toString());
    }

    private Optional<SpanData> serverSpanOfPay() {
        return spans.getFinishedSpanItems().stream()
                .filter(span -> span.getKind() == SpanKind.SERVER && span.getName().endsWith("/pay")).findFirst();
    }

    private static SpanData only(List<SpanData> trace, Predicate<SpanData> which, String what) {
        List<SpanData> found = trace.stream().filter(which).toList();
        assertEquals(1, found.size(), "one span of the " + what + " in the trace: " + names(trace));
        return found.get(0);
    }

    private static boolean descendsFrom(SpanData span, SpanData root, Map<String, SpanData> byId) {
        for (SpanData at = span; at != null; at = byId.get(at.getParentSpanId())) {
            if (at.getSpanId().equals(root.getSpanId())) {
                return true;
            }
        }
        return false;
    }

    private static List<String> names(List<SpanData> trace) {
        return trace.stream().map(span -> span.getKind() + " " + span.getName() + " " + span.getAttributes()).toList();
    }
}
