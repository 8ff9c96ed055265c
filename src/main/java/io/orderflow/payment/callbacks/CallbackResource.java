package io.orderflow.payment.callbacks;

import io.orderflow.common.Reply;
import io.orderflow.payment.spi.NotificationRequest;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jboss.resteasy.reactive.RestPath;

/**
 * Provider callbacks, one route for every provider: each verifies its own signature headers over the raw body, so
 * the headers are handed over as they came and the body as bytes. Authenticated by their signature only.
 */
@PermitAll
@Path("/payments/{provider}/callbacks")
public class CallbackResource {

    private final PaymentCallbacks callbacks;

    public CallbackResource(PaymentCallbacks callbacks) {
        this.callbacks = callbacks;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<Response> receive(@RestPath String provider, @Context HttpHeaders headers, byte[] body) {
        Map<String, String> firstValues = new HashMap<>();
        headers.getRequestHeaders().forEach((name, values) -> {
            List<String> present = values == null ? List.of() : values;
            if (!present.isEmpty() && present.get(0) != null) {
                firstValues.put(name, present.get(0));
            }
        });
        NotificationRequest request = new NotificationRequest(firstValues, body);
        return Uni.createFrom().deferred(() -> callbacks.receive(provider, request)).map(Reply::toResponse);
    }
}
