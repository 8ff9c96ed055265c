package io.orderflow.client.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.orderflow.client.FeedEvent;
import io.orderflow.client.OrderflowClient;
import io.orderflow.client.WebhookVerifier;
import io.orderflow.client.generated.model.CreateOrder;
import io.orderflow.client.generated.model.LineItem;
import io.orderflow.client.generated.model.Order;
import io.orderflow.client.generated.model.WebhookEndpointRequest;
import io.orderflow.client.generated.model.WebhookEndpointWithSecret;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A real delivery of the packaged service, verified by the client with the Standard Webhooks library. */
class WebhookVerifierIT {

    @Test
    void shouldVerifyARealDeliveryAndRefuseATamperedOne() throws Exception {
        TheService.assumeRunning();
        URI base = URI.create(TheService.URL);
        BlockingQueue<Map.Entry<String, Map<String, List<String>>>> received = new LinkedBlockingQueue<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.createContext("/hooks", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.add(Map.entry(body, new HashMap<>(exchange.getRequestHeaders())));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
        OrderflowClient operator = TheService.operator(base);
        WebhookEndpointWithSecret endpoint = operator.call("registerWebhookEndpoint",
                key -> operator.webhooks().registerWebhookEndpointWithHttpInfo(key, new WebhookEndpointRequest()
                        .url("http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks")
                        .addTypesItem("io.orderflow.order.created")));
        try {
            Order order = TheService.customer(base).createOrder(new CreateOrder().currency("EUR")
                    .addItemsItem(new LineItem().sku("HOOK-1").quantity(1).unitPrice(100L)));
            Map.Entry<String, Map<String, List<String>>> delivery = received.poll(60, TimeUnit.SECONDS);
            assertTrue(delivery != null, "no delivery within 60 s");

            FeedEvent event = new WebhookVerifier(endpoint.getSecret()).verify(delivery.getKey(), delivery.getValue());

            assertEquals(order.getId().toString(), event.subject());
            assertEquals("io.orderflow.order.created", event.type());
            assertEquals(List.of(event.id()), delivery.getValue().get("Webhook-id"));
            assertEquals(order.getId(), event.orderEvent().getData().getOrder().getId());
            assertThrows(WebhookVerifier.InvalidWebhookException.class, () -> new WebhookVerifier(endpoint.getSecret())
                    .verify(delivery.getKey().replace("HOOK-1", "HOOK-2"), delivery.getValue()));
            assertThrows(WebhookVerifier.InvalidWebhookException.class,
                    () -> new WebhookVerifier("whsec_" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODk=")
                            .verify(delivery.getKey(), delivery.getValue()));
        } finally {
            operator.webhooks().deleteWebhookEndpoint(endpoint.getId());
            receiver.stop(0);
        }
    }
}
