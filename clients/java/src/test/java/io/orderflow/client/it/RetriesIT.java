package io.orderflow.client.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.client.Attempt;
import io.orderflow.client.OrderflowClient;
import io.orderflow.client.ProblemException;
import io.orderflow.client.ProblemTypes;
import io.orderflow.client.generated.model.CancelRequest;
import io.orderflow.client.generated.model.CreateOrder;
import io.orderflow.client.generated.model.LineItem;
import io.orderflow.client.generated.model.Order;
import io.orderflow.client.generated.model.OrderStatus;
import io.orderflow.client.generated.model.PayRequest;
import io.orderflow.client.generated.model.ShipRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client against the packaged service, through a proxy that cuts connections and shows the wire: a call whose
 * answer was lost is sent again with its key and applied once; a shed request is retried with the same key; a
 * refusal is one typed exception and is not retried.
 */
class RetriesIT {

    private final List<Attempt> attempts = new CopyOnWriteArrayList<>();
    private CuttingProxy proxy;

    @BeforeEach
    void startProxy() throws Exception {
        TheService.assumeRunning();
        proxy = CuttingProxy.to(URI.create(TheService.URL));
    }

    @AfterEach
    void stopProxy() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
    }

    private OrderflowClient client(URI base, String token) {
        return TheService.client(base, token).onRetry(attempts::add).build();
    }

    private static CreateOrder order(String sku) {
        return new CreateOrder().currency("EUR").addItemsItem(new LineItem().sku(sku).quantity(2).unitPrice(1250L));
    }

    private static String sku() {
        return "SKU-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void shouldCreateOneOrderWhenTheAnswerIsCutAfterTheRequestWasSent() {
        OrderflowClient client = client(proxy.uri(), TheService.CUSTOMER_TOKEN);
        String sku = sku();

        proxy.cutNextAnswer();
        Order order = client.createOrder(order(sku));

        List<String> creates = proxy.requests().stream().filter(r -> r.startsWith("POST /orders ")).collect(
                Collectors.toList());
        assertEquals(2, creates.size(), "the cut attempt and its retry: " + creates);
        String key = CuttingProxy.header(creates.get(0), "Idempotency-Key");
        assertNotNull(key);
        assertEquals(key, CuttingProxy.header(creates.get(1), "Idempotency-Key"), "the retry's key");
        String answer = proxy.answers().get(proxy.answers().size() - 1);
        assertTrue(answer.startsWith("HTTP/1.1 201"), answer);
        assertEquals("true", CuttingProxy.header(answer, "Idempotent-Replayed"), "the first answer, replayed: " + answer);
        assertEquals(1, Database.ordersWithSku(sku), "orders written");
        assertEquals(1, attempts.size(), "one attempt failed: " + attempts);
        assertEquals(0, attempts.get(0).status(), "with no answer: " + attempts);
        assertEquals(OrderStatus.CREATED, client.getOrder(order.getId()).getStatus());
    }

    @Test
    void shouldShipOnceWhenTheAnswerIsCutAfterTheRequestWasSent() throws Exception {
        OrderflowClient customer = client(proxy.uri(), TheService.CUSTOMER_TOKEN);
        OrderflowClient operator = client(proxy.uri(), TheService.OPERATOR_TOKEN);
        Order order = customer.createOrder(order(sku()));
        customer.pay(order, new PayRequest().provider("mockpay"));
        Mockpay.paymentSucceeded(URI.create(TheService.URL), order.getId().toString(), 2500, "EUR");
        Order paid = operator.getOrder(order.getId());
        proxy.forget();

        proxy.cutNextAnswer();
        Order shipped = operator.ship(paid, new ShipRequest().carrier("DHL").trackingNumber("JD0001"));

        assertEquals(OrderStatus.SHIPPED, shipped.getStatus());
        List<String> ships = proxy.requests().stream().filter(r -> r.startsWith("POST /orders/" + order.getId()
                + "/ship ")).collect(Collectors.toList());
        assertEquals(2, ships.size(), "the cut attempt and its retry: " + ships);
        assertEquals(CuttingProxy.header(ships.get(0), "Idempotency-Key"),
                CuttingProxy.header(ships.get(1), "Idempotency-Key"), "the retry's key");
        assertEquals("\"" + paid.getVersion() + "\"", CuttingProxy.header(ships.get(1), "If-Match"));
        assertEquals(1, Database.historyRows(order.getId().toString(), "SHIP"), "history rows of the SHIP");
        assertEquals(paid.getVersion() + 1, shipped.getVersion());
    }

    @Test
    void shouldRetryARequestTheServiceShedWithTheSameKey() throws Exception {
        URI shedding = URI.create(TheService.SHEDDING_URL);
        proxy.close();
        proxy = CuttingProxy.to(shedding);
        String sku = sku();
        Order held = TheService.customer(shedding).createOrder(order(sku()));
        // one statement in flight is all this instance takes: a CANCEL waiting on a row lock we hold is that one
        try (Connection lock = Database.connect()) {
            lock.setAutoCommit(false);
            try (PreparedStatement select = lock.prepareStatement("select 1 from orders where id = ?::uuid for update")) {
                select.setString(1, held.getId().toString());
                select.executeQuery().close();
            }
            CompletableFuture<HttpResponse<String>> cancel = HttpClient.newHttpClient().sendAsync(HttpRequest
                    .newBuilder(shedding.resolve("/orders/" + held.getId() + "/cancel"))
                    .header("Authorization", "Bearer " + TheService.CUSTOMER_TOKEN)
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            awaitBlockedBy(lock);
            OrderflowClient client = TheService.client(proxy.uri(), TheService.CUSTOMER_TOKEN).onRetry(attempt -> {
                attempts.add(attempt);
                commit(lock);   // shed once: let the CANCEL finish, so the retry finds room
            }).build();

            Order created = client.createOrder(order(sku));

            assertEquals(OrderStatus.CREATED, created.getStatus());
            assertEquals(200, cancel.get(30, TimeUnit.SECONDS).statusCode());
        }
        assertEquals(1, attempts.size(), "attempts that failed: " + attempts);
        assertEquals(503, attempts.get(0).status());
        assertEquals(ProblemTypes.SERVICE_UNAVAILABLE, attempts.get(0).problemType());
        assertTrue(attempts.get(0).delay().toMillis() >= 1000, "Retry-After: 1 honoured: " + attempts.get(0));
        List<String> creates = proxy.requests().stream().filter(r -> r.startsWith("POST /orders "))
                .collect(Collectors.toList());
        List<String> answers = proxy.answers().stream().map(a -> a.substring(0, 12))
                .collect(Collectors.toList());
        assertEquals(List.of("HTTP/1.1 503", "HTTP/1.1 201"), answers);
        assertEquals(2, creates.size(), creates.toString());
        assertEquals(attempts.get(0).idempotencyKey(), CuttingProxy.header(creates.get(0), "Idempotency-Key"));
        assertEquals(attempts.get(0).idempotencyKey(), CuttingProxy.header(creates.get(1), "Idempotency-Key"));
        assertEquals(1, Database.ordersWithSku(sku), "orders written");
    }

    @Test
    void shouldMapARefusalToAProblemAndNeverRetryIt() {
        OrderflowClient customer = client(proxy.uri(), TheService.CUSTOMER_TOKEN);
        Order order = customer.createOrder(order(sku()));
        customer.cancel(order, new CancelRequest().reason("changed my mind"));
        proxy.forget();

        ProblemException stale = assertThrows(ProblemException.class,
                () -> customer.pay(order, new PayRequest().provider("mockpay")));
        assertEquals(ProblemTypes.VERSION_MISMATCH, stale.type());
        assertEquals(412, stale.status());
        assertEquals(1, ((Number) stale.member("currentVersion").orElseThrow()).intValue());
        assertNotNull(stale.title());
        ProblemException illegal = assertThrows(ProblemException.class,
                () -> customer.pay(order.getId(), new PayRequest().provider("mockpay")));
        assertTrue(illegal.is(ProblemTypes.ILLEGAL_TRANSITION), illegal.type());
        assertEquals(409, illegal.status());
        assertEquals("CANCELLED", illegal.member("currentStatus").orElseThrow());
        assertNotNull(illegal.detail());
        assertTrue(illegal.member("allowedEvents").orElseThrow() instanceof List, illegal.members().toString());

        assertEquals(2, proxy.requests().size(), "one request each, no retry: " + proxy.requests());
        assertEquals(1, stale.attempts());
        assertTrue(attempts.stream().noneMatch(Attempt::willRetry), attempts.toString());
    }

    private static void awaitBlockedBy(Connection lock) throws Exception {
        int pid;
        try (PreparedStatement select = lock.prepareStatement("select pg_backend_pid()");
                ResultSet row = select.executeQuery()) {
            row.next();
            pid = row.getInt(1);
        }
        for (int i = 0; i < 200; i++) {
            if (Database.count("select count(*) from pg_stat_activity where ? = any(pg_blocking_pids(pid))", pid) == 1) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the CANCEL never waited on the lock");
    }

    private static void commit(Connection lock) {
        try {
            lock.commit();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
