package io.orderflow.idempotency;

import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * An Idempotency-Key header that is sent but empty is a malformed key ({@code idempotency-key-invalid}), not a
 * missing one: the REST layer hands an empty header value to resources as absent, so it is told apart here.
 */
@ApplicationScoped
public class EmptyKeyHeader {

    private final ProblemMapper problems;

    public EmptyKeyHeader(ProblemMapper problems) {
        this.problems = problems;
    }

    @ServerRequestFilter
    public Response refuseEmptyKey(HttpServerRequest request) {
        String key = request.getHeader(IdempotencyKeys.HEADER);
        if (key == null || !key.isBlank()) {
            return null;
        }
        return problems.toReply(Problem.of(ProblemType.IDEMPOTENCY_KEY_INVALID,
                "Idempotency-Key must be 1 to " + IdempotencyKeys.MAX_LENGTH + " printable characters"), null)
                .toResponse();
    }
}
