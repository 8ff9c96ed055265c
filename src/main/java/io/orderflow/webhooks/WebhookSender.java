package io.orderflow.webhooks;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.orderflow.common.Spans;
import io.orderflow.common.TraceContext;
import io.orderflow.events.EventsConfig;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.tracing.TracingPolicy;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Sends one delivery: checks its URL again after a fresh DNS lookup ({@link WebhookTargets}), then POSTs the
 * CloudEvent with the Standard Webhooks headers to the very address checked, on the Vert.x client (no thread waits
 * on the receiver). It never follows a redirect, gives up after {@link EventsConfig.Webhooks#timeout()} from the
 * lookup to the last byte, and reads at most {@link EventsConfig.Webhooks#maxResponseBytes()} of the answer (only the
 * status decides). It never fails: every failure is an {@link WebhookDeliveries.Outcome} with an error.
 * <p>
 * Each attempt is one CLIENT span {@value #SPAN}, from the lookup to the answer, with the endpoint, the event, the
 * attempt number and the answer's status code; one other than 2xx, or an error (timeout, refused connection, refused
 * target), marks it failed. Its parent is the request that made the change, when that request was traced (the
 * event carries its trace context), so the change, its deliveries and the receivers' work form one trace; else it is
 * a root span (an operator's retry hangs under the request's span). The Vert.x client's own span of the request is
 * turned off: it would be a second CLIENT span of the same request, naming neither the endpoint nor the event.
 */
@ApplicationScoped
public class WebhookSender {

    static final String CONTENT_TYPE = "application/cloudevents+json";
    static final String USER_AGENT = "orderflow-webhooks/1";
    static final int MAX_ERROR = 300;
    static final String SPAN = "webhook deliver";
    static final AttributeKey<String> ENDPOINT_ID = AttributeKey.stringKey("webhook.endpoint_id");
    static final AttributeKey<String> EVENT_ID = AttributeKey.stringKey("cloudevents.event_id");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("webhook.attempt");
    static final AttributeKey<Long> STATUS_CODE = AttributeKey.longKey("http.response.status_code");

    private final WebhookTargets targets;
    private final Vertx vertx;
    private final Clock clock;
    private final Spans spans;
    private final long timeoutMillis;
    private final int maxResponseBytes;
    private final HttpClient client;

    public WebhookSender(WebhookTargets targets, Vertx vertx, Clock clock, Spans spans, EventsConfig config) {
        this.targets = targets;
        this.vertx = vertx;
        this.clock = clock;
        this.spans = spans;
        this.timeoutMillis = config.webhooks().timeout().toMillis();
        this.maxResponseBytes = config.webhooks().maxResponseBytes();
        // SNI and certificate checks name the URL's host while the connection goes to the address checked
        this.client = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout((int) timeoutMillis)
                .setKeepAlive(true).setForceSni(true).setVerifyHost(true).setDecompressionSupported(false)
                .setMaxRedirects(0).setTracingPolicy(TracingPolicy.IGNORE),
                new PoolOptions().setHttp1MaxSize(20).setMaxWaitQueueSize(1000));
    }

    @PreDestroy
    void close() {
        client.close();
    }

    Uni<WebhookDeliveries.Outcome> send(WebhookDeliveries.Due due) {
        long started = System.nanoTime();
        String messageId = due.eventId().toString();
        Optional<TraceContext> trace = TraceContext.parse(due.trace());
        Uni<Integer> exchange = lookUp(due.url())
                .chain(target -> post(target, messageId, due.body(), due.secrets(), trace))
                .ifNoItem().after(Duration.ofMillis(timeoutMillis)).failWith(TimeoutException::new);
        return spans.traced(SPAN, span -> {
            span.setSpanKind(SpanKind.CLIENT).setAttribute(ENDPOINT_ID, due.endpointId().toString())
                    .setAttribute(EVENT_ID, messageId).setAttribute(ATTEMPT, (long) due.attempt());
            if (!Span.current().getSpanContext().isSampled()) { // an operator's retry stays under its request
                trace.ifPresent(context -> span.setParent(context.asParent()));
            }
        }, exchange, WebhookSender::answered)
                .map(status -> new WebhookDeliveries.Outcome(status, null, elapsed(started)))
                .onFailure().recoverWithItem(failure -> new WebhookDeliveries.Outcome(null, describe(failure),
                        elapsed(started)));
    }

    /** The answer on the attempt's span; one other than 2xx fails it, as it fails the attempt. */
    private static void answered(Span span, Integer status) {
        span.setAttribute(STATUS_CODE, (long) status);
        if (status / 100 != 2) {
            Spans.failed(span, status.toString());
        }
    }

    /**
     * {@link WebhookTargets#resolve}, whose DNS lookup blocks, on a worker thread; the answer comes back on the
     * caller's Vert.x context (Hibernate Reactive must be used from there). A refusal is a {@link RefusedTarget}.
     */
    Uni<WebhookTargets.Target> lookUp(String url) {
        return Uni.createFrom().completionStage(() -> vertx.executeBlocking(() -> {
            try {
                return targets.resolve(url);
            } catch (WebhookTargets.Refused refused) {
                throw new RefusedTarget(refused.getMessage());
            }
        }, false).toCompletionStage());
    }

    /**
     * The POST; the trace context of the request that made the change goes with it ({@code traceparent},
     * {@code tracestate}), so that the receiver's work joins that request's trace.
     */
    private Uni<Integer> post(WebhookTargets.Target target, String messageId, String body, List<String> secrets,
            Optional<TraceContext> trace) {
        long timestamp = clock.instant().getEpochSecond();
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost(target.host())
                .setPort(target.port()).setSsl(target.tls()).setURI(target.requestUri()).setFollowRedirects(false)
                .setServer(SocketAddress.inetSocketAddress(target.port(), target.address().getHostAddress()))
                .putHeader("content-type", CONTENT_TYPE).putHeader("user-agent", USER_AGENT)
                .putHeader("webhook-id", messageId).putHeader("webhook-timestamp", Long.toString(timestamp))
                .putHeader("webhook-signature", WebhookSignatures.header(messageId, timestamp, body, secrets));
        trace.ifPresent(context -> {
            options.putHeader("traceparent", context.traceparent());
            if (context.tracestate() != null) {
                options.putHeader("tracestate", context.tracestate());
            }
        });
        AtomicReference<HttpClientRequest> sent = new AtomicReference<>();
        return Uni.createFrom().<Integer>emitter(emitter -> {
            client.request(options).compose(request -> {
                sent.set(request);
                return request.send(Buffer.buffer(body));
            }).onFailure(emitter::fail).onSuccess(response -> {
                int status = response.statusCode();
                AtomicLong read = new AtomicLong();
                response.handler(chunk -> {
                    if (read.addAndGet(chunk.length()) > maxResponseBytes) {
                        response.request().reset();
                        emitter.complete(status);
                    }
                });
                response.exceptionHandler(failure -> emitter.complete(status));
                response.endHandler(done -> emitter.complete(status));
            });
        }).onCancellation().invoke(() -> {
            HttpClientRequest request = sent.get();
            if (request != null) {
                request.reset();
            }
        });
    }

    private static long elapsed(long started) {
        return (System.nanoTime() - started) / 1_000_000;
    }

    /** An error as the delivery log shows it: what kind, and the cause's message, bounded. */
    static String describe(Throwable failure) {
        String text;
        if (failure instanceof RefusedTarget) {
            text = "refused target: " + failure.getMessage();
        } else if (failure instanceof TimeoutException) {
            text = "timeout: no complete answer within the delivery timeout";
        } else if (failure instanceof ConnectException) {
            text = "connection failed: " + failure.getMessage();
        } else {
            text = failure.getClass().getSimpleName() + ": " + failure.getMessage();
        }
        return text.length() > MAX_ERROR ? text.substring(0, MAX_ERROR) : text;
    }

    /** The URL failed {@link WebhookTargets}' rule at delivery time: nothing was sent. */
    static final class RefusedTarget extends RuntimeException {
        RefusedTarget(String message) {
            super(message, null, false, false);
        }
    }
}
