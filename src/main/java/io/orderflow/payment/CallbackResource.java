package io.orderflow.payment;

import io.orderflow.common.Reply;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.RestHeader;
import org.jboss.resteasy.reactive.RestPath;

/** Provider callbacks. Authenticated by their signature only; the body is taken as raw bytes for verification. */
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
    public Uni<Response> receive(@RestPath String provider,
            @RestHeader(SignatureVerifier.HEADER) String signature, byte[] body) {
        return Uni.createFrom().deferred(() -> callbacks.receive(provider, signature, body)).map(Reply::toResponse);
    }
}
