package io.orderflow.payment;

import static com.github.tomakehurst.wiremock.client.WireMock.*;
import static io.orderflow.support.OrderMother.*;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.orderflow.payment.reconcile.Reconciler;
import io.orderflow.payment.stripe.StripeFixtures;
import io.quarkus.vertx.VertxContextSupport;
import java.util.List;
import java.util.Map;

/** What the janitor's tests share: a Stripe payment to ask about, Stripe's answer, and one run of the janitor. */
final class Janitor {

    private Janitor() {
    }

    /** A new order paying through Stripe (the sandbox {@code server}) with PaymentIntent {@code intent}; its id. */
    static String payingWithStripe(WireMockServer server, String intent) {
        String id = createOrder();
        server.stubFor(post("/v1/payment_intents").willReturn(okJson(StripeFixtures.intent(intent,
                "requires_payment_method", String.valueOf(AMOUNT), "eur", null))));
        postKeyed(id, "pay", Map.of("provider", "stripe"), newKey()).then().statusCode(200);
        return id;
    }

    /** What Stripe answers when asked about {@code intent}. */
    static void stripeSays(WireMockServer server, String intent, String status, String charge) {
        server.stubFor(get(urlPathEqualTo("/v1/payment_intents/" + intent)).willReturn(okJson(
                StripeFixtures.intent(intent, status, String.valueOf(AMOUNT), "eur", charge))));
    }

    /** One run of the janitor, on a Vert.x context as the scheduler runs it. */
    static List<String> run(Reconciler reconciler) {
        try {
            return VertxContextSupport.subscribeAndAwait(reconciler::reconcile);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
