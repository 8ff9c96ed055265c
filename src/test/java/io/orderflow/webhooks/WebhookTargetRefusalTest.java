package io.orderflow.webhooks;

import static io.orderflow.support.OrderMother.createOrder;
import static io.orderflow.support.OrderMother.newKey;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Auth;
import io.orderflow.support.Await;
import io.orderflow.support.CappedProxiedService;
import io.orderflow.support.Sql;
import io.orderflow.support.WebhookReceiver;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Server-side request forgery, as production runs (private targets not allowed): registrations aimed inside are
 * refused with a 400 problem and store nothing, and an endpoint whose address turns internal after it was registered
 * (DNS rebinding; here its row is written as a registration of a public name would have left it) is refused at
 * delivery time: the attempt is logged as a refused target and nothing reaches the address.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(CappedProxiedService.class)
class WebhookTargetRefusalTest {

    @AfterEach
    void deleteEndpoints() {
        Sql.update("update webhook_deliveries set status = 'CANCELLED' where status = 'PENDING'");
        Sql.update("update webhook_endpoints set status = 'deleted' where status <> 'deleted'");
    }

    @Test
    void shouldRefuseRegistrationsAimedInsideTheCluster() {
        long before = Sql.count("select count(*) from webhook_endpoints");
        for (String url : List.of("http://127.0.0.1/hook", "http://[::1]/hook",
                "http://169.254.169.254/latest/meta-data/iam/security-credentials/", "http://10.0.0.1/hook",
                "http://localhost:8080/hook", "https://192.168.0.10/hook", "http://[fd00::1]/hook")) {
            WebhooksTest.register(newKey(), Map.of("url", url)).then().statusCode(400)
                    .contentType("application/problem+json").body("detail", containsString("resolves to"));
        }
        assertEquals(before, Sql.count("select count(*) from webhook_endpoints"));
    }

    @Test
    void shouldRefuseAtDeliveryTimeAnAddressThatTurnedInternal() {
        try (WebhookReceiver inside = WebhookReceiver.accepting()) {
            String endpoint = UUID.randomUUID().toString();
            // read from the feed's head on, as a registration does: not the events earlier tests left
            Sql.update("insert into webhook_endpoints (id, url, secret, status, cursor, created_at, updated_at)"
                    + " select cast(? as uuid), ?, 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=', 'enabled',"
                    + " position, now(), now() from event_cursors where name = 'sequencer'", endpoint,
                    inside.url("/rebound"));
            String id = createOrder();
            Await.until(() -> Sql.count("select count(*) from webhook_attempts where endpoint_id = cast(? as uuid)",
                    endpoint) > 0, "a first attempt");
            String error = Sql.string("select error from webhook_attempts where endpoint_id = cast(? as uuid)"
                    + " order by id limit 1", endpoint);
            assertTrue(error.startsWith("refused target: "), error);
            assertTrue(inside.received().isEmpty(), "nothing reached the internal address");
            Auth.operator().get("/webhook-endpoints/" + endpoint + "/deliveries").then().statusCode(200)
                    .body("items[0].error", containsString("127.0.0.1"));
            assertEquals(1, Sql.count("select count(*) from webhook_deliveries where endpoint_id = cast(? as uuid)"
                    + " and aggregateid = ?", endpoint, id));
        }
    }
}
