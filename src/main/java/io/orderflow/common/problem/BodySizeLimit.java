package io.orderflow.common.problem;

import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import io.quarkus.runtime.configuration.MemorySize;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Refuses a body larger than {@code orders.http.max-body-size} (64 KB) from its Content-Length, before it is read,
 * with a 413 problem. The HTTP layer's {@code quarkus.http.limits.max-body-size} stays as a backstop for bodies
 * sent without a length.
 */
@ApplicationScoped
public class BodySizeLimit {

    private final long maxBytes;
    private final ProblemMapper problems;

    public BodySizeLimit(@ConfigProperty(name = "orders.http.max-body-size", defaultValue = "64K") MemorySize max,
            ProblemMapper problems) {
        this.maxBytes = max.asLongValue();
        this.problems = problems;
    }

    @ServerRequestFilter(preMatching = true)
    public Response refuseLargeBodies(HttpServerRequest request) {
        String length = request.getHeader("Content-Length");
        if (length == null) {
            return null;
        }
        try {
            if (Long.parseLong(length.trim()) <= maxBytes) {
                return null;
            }
        } catch (NumberFormatException e) {
            return problems.toReply(Problem.of(ProblemType.INVALID_REQUEST, "Content-Length is not a number"), null)
                    .toResponse();
        }
        return problems.toReply(Problem.of(ProblemType.PAYLOAD_TOO_LARGE,
                "The body may be at most " + maxBytes + " bytes"), null).toResponse();
    }
}
