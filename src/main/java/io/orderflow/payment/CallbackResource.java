package io.orderflow.payment;

import io.orderflow.common.Reply;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponses;
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
    @APIResponses({ @APIResponse(responseCode = "200"), @APIResponse(responseCode = "400"),
            @APIResponse(responseCode = "401"), @APIResponse(responseCode = "404"),
            @APIResponse(responseCode = "409"), @APIResponse(responseCode = "415"),
            @APIResponse(responseCode = "422"), @APIResponse(responseCode = "503") })
    public Uni<Response> receive(@RestPath String provider,
            @RestHeader(SignatureVerifier.HEADER) String signature, byte[] body) {
        return Uni.createFrom().deferred(() -> callbacks.receive(provider, signature, body)).map(Reply::toResponse);
    }
}
