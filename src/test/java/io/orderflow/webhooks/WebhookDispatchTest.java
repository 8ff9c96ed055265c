package io.orderflow.webhooks;

import static io.orderflow.support.OrderMother.createOrder;
import static io.orderflow.support.OrderMother.newKey;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.events.EventsConfig;
import io.orderflow.support.Auth;
import io.orderflow.support.Await;
import io.orderflow.support.SilentReceiver;
import io.orderflow.support.Sql;
import io.orderflow.support.WebhookReceiver;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the dispatcher shares a replica among endpoints: a receiver that never answers holds only its own slots while
 * the others are served one event after another; the number of enabled endpoints is capped; the delivery log is
 * purged by age.
 */
@QuarkusTest
class WebhookDispatchTest {

    @Inject
    EventsConfig config;

    @Inject
    WebhookRetention retention;

    @AfterEach
    void deleteEndpoints() {
        Sql.update("update webhook_deliveries set status = 'CANCELLED' where status = 'PENDING'");
        Sql.update("update webhook_endpoints set status = 'deleted' where status <> 'deleted'");
    }

    @Test
    void shouldServeAHealthyEndpointEventAfterEventWhileAnotherNeverAnswers() {
        try (SilentReceiver hanging = new SilentReceiver(); WebhookReceiver healthy = WebhookReceiver.accepting()) {
            WebhooksTest.register(newKey(), Map.of("url", hanging.url("/hangs"))).then().statusCode(201);
            WebhooksTest.register(newKey(), Map.of("url", healthy.url("/keeps-up"))).then().statusCode(201);
            for (int i = 0; i < 20; i++) {
                String id = createOrder();
                Await.until(() -> healthy.about(id).size() == 1, "order " + id + "'s creation at the healthy one");
            }
            assertTrue(hanging.accepted() > 0, "the hanging one was sent events too");
            assertTrue(hanging.mostOpenAtOnce() <= config.webhooks().maxInFlightPerEndpoint(),
                    "the hanging receiver held at most its endpoint's slots: " + hanging.mostOpenAtOnce());
        }
    }

    @Test
    void shouldRefuseToEnableMoreEndpointsThanAllowedWith409() {
        try (WebhookReceiver receiver = WebhookReceiver.accepting()) {
            int room = config.webhooks().maxEnabledEndpoints() - (int) Sql.count(
                    "select count(*) from webhook_endpoints where status = 'enabled'");
            // the endpoints up to the limit, written at once rather than registered one by one
            Sql.update("insert into webhook_endpoints (id, url, secret, status, cursor, created_at, updated_at)"
                    + " select gen_random_uuid(), ? || g, 'whsec_' || md5(g::text), 'enabled', (select position from"
                    + " event_cursors where name = 'sequencer'), now(), now() from generate_series(1, ?) g",
                    receiver.url("/many/"), room);
            WebhooksTest.register(newKey(), Map.of("url", receiver.url("/one-too-many"))).then().statusCode(409)
                    .contentType("application/problem+json")
                    .body("type", equalTo("https://orderflow.dev/problems/webhook-endpoint-limit"));
            String disabled = Sql.string("select cast(id as text) from webhook_endpoints where status = 'enabled'"
                    + " and url like ? limit 1", receiver.url("/many/") + "%");
            Sql.update("update webhook_endpoints set status = 'disabled' where id = cast(? as uuid)", disabled);
            String last = WebhooksTest.register(newKey(), Map.of("url", receiver.url("/last-place")))
                    .then().statusCode(201).extract().path("id");
            Auth.operator().post("/webhook-endpoints/" + disabled + "/enable").then().statusCode(409)
                    .body("type", equalTo("https://orderflow.dev/problems/webhook-endpoint-limit"));
            Auth.operator().delete("/webhook-endpoints/" + last).then().statusCode(204);
            Auth.operator().post("/webhook-endpoints/" + disabled + "/enable").then().statusCode(200)
                    .body("status", equalTo("enabled"));
            assertEquals(config.webhooks().maxEnabledEndpoints(),
                    Sql.count("select count(*) from webhook_endpoints where status = 'enabled'"));
        }
    }

    @Test
    void shouldPurgeTheLogAndSettledDeliveriesPastRetentionAndKeepWhatIsOwed() throws Throwable {
        String endpoint = WebhooksTest.register(newKey(), Map.of("url", "http://127.0.0.1:9/gone")).then()
                .statusCode(201).extract().path("id");
        Sql.update("insert into webhook_attempts (endpoint_id, event_id, attempt, duration_ms, manual, at)"
                + " select cast(? as uuid), gen_random_uuid(), 1, 1, false, now() - interval '31 days'"
                + " from generate_series(1, 2500)", endpoint);
        Sql.update("insert into webhook_deliveries (endpoint_id, event_id, aggregateid, position, type, body, status,"
                + " next_attempt_at, created_at, updated_at) select cast(? as uuid), gen_random_uuid(), 'o', g, 't',"
                + " '{}', case when g % 2 = 0 then 'SUCCEEDED' else 'PENDING' end, now() + interval '1 day',"
                + " now() - interval '31 days', now() - interval '31 days' from generate_series(1, 10) g", endpoint);
        String recent = UUID.randomUUID().toString();
        Sql.update("insert into webhook_attempts (endpoint_id, event_id, attempt, duration_ms, manual, at)"
                + " values (cast(? as uuid), cast(? as uuid), 1, 1, false, now())", endpoint, recent);
        VertxContextSupport.subscribeAndAwait(retention::purge);
        // the endpoint is enabled, so the dispatcher may log real attempts of its own beside these meanwhile
        assertEquals(0, Sql.count("select count(*) from webhook_attempts where endpoint_id = cast(? as uuid)"
                + " and at < now() - interval '30 days'", endpoint), "the old attempts gone");
        assertEquals(1, Sql.count("select count(*) from webhook_attempts where event_id = cast(? as uuid)", recent),
                "the recent one kept");
        assertEquals(List.of("PENDING"), Sql.strings("select distinct status from webhook_deliveries"
                + " where endpoint_id = cast(? as uuid)", endpoint), "what is owed stays");
    }
}
