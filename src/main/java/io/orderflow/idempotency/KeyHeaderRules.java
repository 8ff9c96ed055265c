package io.orderflow.idempotency;

import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * What the REST layer would hide about the Idempotency-Key header, told apart here as a malformed key
 * ({@code idempotency-key-invalid}): a header sent but empty (handed to resources as absent, so "missing"), and the
 * header sent twice (the first would win silently: which key did the client mean?).
 */
@ApplicationScoped
public class KeyHeaderRules {

    private final ProblemMapper problems;

    public KeyHeaderRules(ProblemMapper problems) {
        this.problems = problems;
    }

    @ServerRequestFilter
    public Response refuseEmptyOrTwoKeys(HttpServerRequest request) {
        if (request.headers().getAll(IdempotencyKeys.HEADER).size() > 1) {
            return problems.toReply(Problem.of(ProblemType.IDEMPOTENCY_KEY_INVALID,
                    "Send one Idempotency-Key header, not several"), null).toResponse();
        }
        String key = request.getHeader(IdempotencyKeys.HEADER);
        if (key == null || !key.isBlank()) {
            return null;
        }
        return problems.toReply(Problem.of(ProblemType.IDEMPOTENCY_KEY_INVALID,
                "Idempotency-Key must be 1 to " + IdempotencyKeys.MAX_LENGTH + " printable characters"), null)
                .toResponse();
    }
}
