package io.orderflow.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Talks to one service instance over real HTTP/1.1 ({@link java.net.http.HttpClient}, explicit base URI): the calls
 * the process-level tests make, each answered as an {@link Answer} that is either a response or the I/O failure
 * that stood in for one (refused, reset, timed out). Tokens are minted with the dev key pair ({@link Auth}). Every
 * answer is validated against openapi.yaml, as the RESTAssured tests' are.
 */
public final class ServiceClient {

    /** Amount (minor units, EUR) of {@link #orderBody}. */
    public static final long AMOUNT = 3000;
    public static final String OPERATOR = "ops-it";

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> TOKENS = new ConcurrentHashMap<>();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final URI base;

    public ServiceClient(URI base) {
        this.base = base;
    }

    public ServiceClient(ServiceProcess instance) {
        this(instance.baseUri());
    }

    /** One HTTP answer, or the failure that kept it from arriving. */
    public record Answer(int status, HttpHeaders headers, byte[] body, Exception failure) {

        public boolean answered() {
            return failure == null;
        }

        public boolean is2xx() {
            return answered() && status / 100 == 2;
        }

        public boolean is5xx() {
            return answered() && status / 100 == 5;
        }

        /** No answer at all, or a 5xx: the caller cannot know what happened and must retry with the same key. */
        public boolean mustRetry() {
            return !answered() || is5xx();
        }

        public boolean replayed() {
            return answered() && "true".equals(headers.firstValue("Idempotent-Replayed").orElse(null));
        }

        public String text() {
            return body == null ? "" : new String(body, StandardCharsets.UTF_8);
        }

        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + text(), e);
            }
        }

        public String field(String name) {
            JsonNode node = json().get(name);
            return node == null || node.isNull() ? null : node.asText();
        }

        /** The problem type's slug of a problem+json answer ({@code request-in-flight}, ...), else null. */
        public String problem() {
            if (!answered() || status < 400 || !text().startsWith("{")) {
                return null;
            }
            String type = field("type");
            return type == null ? null : type.substring(type.lastIndexOf('/') + 1);
        }

        @Override
        public String toString() {
            return answered() ? status + (replayed() ? " (replayed) " : " ") + text()
                    : "no answer: " + failure;
        }
    }

    public static String customerToken(String customerId) {
        return TOKENS.computeIfAbsent("customer:" + customerId, k -> Auth.token("customer", customerId));
    }

    public static String operatorToken() {
        return TOKENS.computeIfAbsent("operator", k -> Auth.token("operator", OPERATOR));
    }

    public static String newCustomer() {
        return "it-" + UUID.randomUUID();
    }

    public static String orderBody(String customerId) {
        return "{\"customerId\":\"" + customerId + "\",\"currency\":\"EUR\",\"items\":["
                + "{\"sku\":\"SKU-1\",\"quantity\":2,\"unitPrice\":1250},"
                + "{\"sku\":\"SKU-2\",\"quantity\":1,\"unitPrice\":500}]}";
    }

    public static final String PAY_BODY = "{\"provider\":\"mockpay\"}";
    public static final String SHIP_BODY = "{\"carrier\":\"DHL\",\"trackingNumber\":\"JD0001\"}";
    public static final String DELIVER_BODY = "{}";
    public static final String CANCEL_BODY = "{\"reason\":\"race\"}";

    /** A provider event body, fixed once so that every re-delivery sends the same bytes. */
    public static String providerEvent(String eventId, String type, String orderId, String txnId) {
        return Callbacks.event(eventId, type, orderId, AMOUNT, "EUR", txnId);
    }

    public Answer createOrder(String customerId, String key) {
        return join(createOrderAsync(customerId, key));
    }

    public CompletableFuture<Answer> createOrderAsync(String customerId, String key) {
        return post("/orders", orderBody(customerId), customerToken(customerId), key);
    }

    /** {@code POST /orders/{id}/{action}}: pay as the owning customer, the rest as the operator; key may be null. */
    public Answer transition(String orderId, String action, String customerId, String key, String body) {
        return join(transitionAsync(orderId, action, customerId, key, body));
    }

    public CompletableFuture<Answer> transitionAsync(String orderId, String action, String customerId, String key,
            String body) {
        String token = action.equals("pay") ? customerToken(customerId) : operatorToken();
        return post("/orders/" + orderId + "/" + action, body, token, key);
    }

    /** Posts a provider event signed now with the mockpay secret (the signature is fresh, the body unchanged). */
    public Answer callback(String body) {
        return join(callbackAsync(body));
    }

    public CompletableFuture<Answer> callbackAsync(String body) {
        String signature = Callbacks.signature(ServiceProcess.SECRET, Instant.now().getEpochSecond(), body);
        return send(HttpRequest.newBuilder(base.resolve("/payments/mockpay/callbacks")).timeout(TIMEOUT)
                .header("Content-Type", "application/json").header("Payment-Signature", signature)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), body);
    }

    public Answer getOrder(String orderId) {
        return join(send(HttpRequest.newBuilder(base.resolve("/orders/" + orderId)).timeout(TIMEOUT)
                .header("Authorization", "Bearer " + operatorToken()).GET().build(), null));
    }

    /** {@code GET /events} as the operator: a page of the feed after {@code after} (null: from the oldest). */
    public Answer events(String after, int limit) {
        String query = "?limit=" + limit + (after == null ? "" : "&after=" + after);
        return join(send(HttpRequest.newBuilder(base.resolve("/events" + query)).timeout(TIMEOUT)
                .header("Authorization", "Bearer " + operatorToken()).GET().build(), null));
    }

    private CompletableFuture<Answer> post(String path, String body, String token, String key) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT)
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        return send(b.build(), body);
    }

    /** Sends the request; an answer that openapi.yaml does not describe fails the test (see {@link Contract}). */
    private static CompletableFuture<Answer> send(HttpRequest request, String body) {
        return HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                .thenApply(r -> new Answer(r.statusCode(), r.headers(), r.body(), null))
                .exceptionally(failure -> new Answer(-1, null, null, unwrap(failure)))
                .thenApply(answer -> checked(request, body, answer));
    }

    private static Answer checked(HttpRequest request, String body, Answer answer) {
        if (answer.answered()) {
            Contract.assertAsDocumented(request, body, answer.status(), answer.headers(), answer.body(), true);
        }
        return answer;
    }

    private static Exception unwrap(Throwable failure) {
        Throwable t = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        return t instanceof Exception e ? e : new RuntimeException(t);
    }

    public static Answer join(CompletableFuture<Answer> future) {
        return future.join();
    }

    /**
     * Sends {@code call} until it is answered with something final, as a well-behaved client does: no answer, a 5xx
     * or {@code 409 request-in-flight} are retried (after {@code Retry-After} when given), at most
     * {@code maxAttempts} times and within {@code bound}. Returns the last answer.
     */
    public static Answer untilFinal(Supplier<Answer> call, int maxAttempts, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        Answer answer = null;
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            answer = call.get();
            boolean inFlight = answer.answered() && answer.status == 409
                    && "request-in-flight".equals(answer.problem());
            if (!(answer.mustRetry() || inFlight) || System.nanoTime() > deadline) {
                return answer;
            }
            long wait = answer.answered() ? answer.headers.firstValue("Retry-After").map(s -> Long.parseLong(s) * 1000)
                    .orElse(200L) : 200L;
            ServiceProcess.sleep(Math.min(wait, 2000));
        }
        return answer;
    }
}
