package io.orderflow.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.client.generated.ApiClient;
import io.orderflow.client.generated.api.EventsApi;
import io.orderflow.client.generated.api.OrdersApi;
import io.orderflow.client.generated.api.RefundsApi;
import io.orderflow.client.generated.api.WebhooksApi;
import io.orderflow.client.generated.model.CancelRequest;
import io.orderflow.client.generated.model.CreateOrder;
import io.orderflow.client.generated.model.Order;
import io.orderflow.client.generated.model.PayRequest;
import io.orderflow.client.generated.model.ShipRequest;
import io.orderflow.client.generated.model.Transition;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * orderflow from Java: the generated API ({@link #orders()}, {@link #refunds()}...) behind calls that retry right.
 * Each state-changing call draws one {@code Idempotency-Key} (or takes yours) and sends it with every attempt;
 * retries follow the {@link RetryPolicy}; a refusal is a {@link ProblemException}. A transition given an order read
 * before sends its version as {@code If-Match}, so it applies only to the order as you saw it
 * ({@code 412 version-mismatch} otherwise: read it again and decide).
 *
 * <pre>{@code
 * OrderflowClient client = OrderflowClient.builder(URI.create("https://orders.example.com"))
 *         .bearerToken(() -> tokens.current()).build();
 * Order order = client.createOrder(new CreateOrder().currency("EUR").addItemsItem(item));
 * }</pre>
 */
public final class OrderflowClient {

    private final ApiClient api;
    private final Calls calls;
    private final OrdersApi orders;
    private final RefundsApi refunds;
    private final EventsApi events;
    private final WebhooksApi webhooks;

    private OrderflowClient(ApiClient api, Calls calls) {
        this.api = api;
        this.calls = calls;
        // each generated API builds an HttpClient of its own: built once here
        this.orders = new OrdersApi(api);
        this.refunds = new RefundsApi(api);
        this.events = new EventsApi(api);
        this.webhooks = new WebhooksApi(api);
    }

    public static Builder builder(URI baseUri) {
        return new Builder(baseUri);
    }

    /** Creates an order under a new key; {@link #createOrder(CreateOrder, String)} to send your own. */
    public Order createOrder(CreateOrder order) {
        return createOrder(order, Calls.newKey());
    }

    /** Creates an order under {@code idempotencyKey}: the same key and body always answer the same order. */
    public Order createOrder(CreateOrder order, String idempotencyKey) {
        return calls.keyed("createOrder", idempotencyKey, key -> orders.createOrderWithHttpInfo(key, order)).getData();
    }

    public Order getOrder(UUID id) {
        return calls.read("getOrder", key -> orders.getOrderWithHttpInfo(id)).getData();
    }

    /** The order's history, oldest first. */
    public List<Transition> transitions(UUID id) {
        return calls.read("getOrderTransitions", key -> orders.getOrderTransitionsWithHttpInfo(id)).getData();
    }

    /** PAY, if the order is still at the version {@code seen} has. */
    public Order pay(Order seen, PayRequest payment) {
        return pay(seen.getId(), ifMatch(seen), payment);
    }

    public Order pay(UUID id, PayRequest payment) {
        return pay(id, null, payment);
    }

    private Order pay(UUID id, String ifMatch, PayRequest payment) {
        return calls.keyed("payOrder", Calls.newKey(),
                key -> orders.payOrderWithHttpInfo(id, key, payment, ifMatch)).getData();
    }

    /** SHIP, if the order is still at the version {@code seen} has. */
    public Order ship(Order seen, ShipRequest shipment) {
        return ship(seen.getId(), ifMatch(seen), shipment);
    }

    public Order ship(UUID id, ShipRequest shipment) {
        return ship(id, null, shipment);
    }

    private Order ship(UUID id, String ifMatch, ShipRequest shipment) {
        return calls.keyed("shipOrder", Calls.newKey(),
                key -> orders.shipOrderWithHttpInfo(id, shipment, key, ifMatch)).getData();
    }

    /** DELIVER, if the order is still at the version {@code seen} has. */
    public Order deliver(Order seen) {
        return deliver(seen.getId(), ifMatch(seen));
    }

    public Order deliver(UUID id) {
        return deliver(id, null);
    }

    private Order deliver(UUID id, String ifMatch) {
        return calls.keyed("deliverOrder", Calls.newKey(),
                key -> orders.deliverOrderWithHttpInfo(id, key, ifMatch, Map.of())).getData();
    }

    /** CANCEL, if the order is still at the version {@code seen} has. */
    public Order cancel(Order seen, CancelRequest cancellation) {
        return cancel(seen.getId(), ifMatch(seen), cancellation);
    }

    public Order cancel(UUID id, CancelRequest cancellation) {
        return cancel(id, null, cancellation);
    }

    private Order cancel(UUID id, String ifMatch, CancelRequest cancellation) {
        return calls.keyed("cancelOrder", Calls.newKey(),
                key -> orders.cancelOrderWithHttpInfo(id, key, ifMatch, cancellation)).getData();
    }

    /** {@code If-Match} for an order as read: its ETag is its version. */
    public static String ifMatch(Order seen) {
        return "\"" + Objects.requireNonNull(seen.getVersion(), "the order's version") + "\"";
    }

    /**
     * Any other state-changing operation of the generated API, under one new key and with the same retries, e.g.
     * {@code client.call("issueRefund", key -> client.refunds().issueRefundWithHttpInfo(id, request, key))}.
     */
    public <T> T call(String operation, KeyedCall<T> attempt) {
        return calls.keyed(operation, Calls.newKey(), attempt).getData();
    }

    /** A reader of the event feed that keeps its place in {@code store} (see {@link FeedReader}). */
    public FeedReader feed(CursorStore store, int pageSize) {
        return new FeedReader(api, calls, store, pageSize);
    }

    public OrdersApi orders() {
        return orders;
    }

    public RefundsApi refunds() {
        return refunds;
    }

    public EventsApi events() {
        return events;
    }

    public WebhooksApi webhooks() {
        return webhooks;
    }

    /** The generated client underneath: base URI, HTTP client, Jackson mapper. */
    public ApiClient apiClient() {
        return api;
    }

    public static final class Builder {

        private final URI baseUri;
        private Supplier<String> token;
        private RetryPolicy retries = RetryPolicy.defaults();
        private Duration requestTimeout = Duration.ofSeconds(10);
        private HttpClient.Builder http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5));
        private Consumer<Attempt> onRetry = attempt -> { };

        private Builder(URI baseUri) {
            this.baseUri = Objects.requireNonNull(baseUri);
        }

        /** The bearer token, asked for on every request (so a refreshed one is picked up). */
        public Builder bearerToken(Supplier<String> token) {
            this.token = token;
            return this;
        }

        public Builder retries(RetryPolicy retries) {
            this.retries = Objects.requireNonNull(retries);
            return this;
        }

        /** The longest wait for one attempt's answer (then it counts as no answer, and is retried). */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = Objects.requireNonNull(timeout);
            return this;
        }

        /**
         * The JDK HTTP client's settings. HTTP/1.1 by default: over cleartext, HTTP/2 would be an h2c upgrade, which
         * proxies in between often mishandle; behind TLS, {@code version(HTTP_2)} is fine.
         */
        public Builder httpClient(HttpClient.Builder http) {
            this.http = Objects.requireNonNull(http);
            return this;
        }

        /** Told of every failed attempt, before the wait (for logs and metrics). */
        public Builder onRetry(Consumer<Attempt> listener) {
            this.onRetry = Objects.requireNonNull(listener);
            return this;
        }

        public OrderflowClient build() {
            ObjectMapper mapper = ApiClient.createDefaultObjectMapper();
            ApiClient api = new ApiClient(http, mapper, baseUri.toString().replaceAll("/+$", ""));
            api.setReadTimeout(requestTimeout);
            String agent = "orderflow-client-java/" + Version.CLIENT;
            Supplier<String> bearer = token;
            api.setRequestInterceptor(request -> {
                request.setHeader("User-Agent", agent);
                if (bearer != null) {
                    request.setHeader("Authorization", "Bearer " + bearer.get());
                }
            });
            return new OrderflowClient(api, new Calls(retries, mapper, onRetry));
        }
    }
}
