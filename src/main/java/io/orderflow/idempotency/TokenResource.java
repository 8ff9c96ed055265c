package io.orderflow.idempotency;

import io.orderflow.common.Callers;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;

/**
 * Issues one-time submit tokens: a form gets one when it renders and sends it as its Idempotency-Key. Forms are the
 * customers'; operators' tools and other clients generate their own keys.
 */
@Path("/idempotency-tokens")
@RolesAllowed(Callers.CUSTOMER)
@Produces(MediaType.APPLICATION_JSON)
public class TokenResource {

    public record Issued(String token, Instant expiresAt) {
    }

    private final OneTimeTokens tokens;
    private final Callers callers;

    public TokenResource(OneTimeTokens tokens, Callers callers) {
        this.tokens = tokens;
        this.callers = callers;
    }

    @POST
    public Uni<Response> issue() {
        return tokens.issue(callers.current().scope())
                .map(t -> Response.status(201).entity(new Issued(t.token, t.expiresAt)).build());
    }
}
