package io.orderflow.common.problem;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.orderflow.common.DatabaseFailures;
import io.orderflow.common.Reply;
import io.quarkus.arc.All;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import io.smallrye.mutiny.CompositeException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The one place that turns a failure into RFC 9457 problem+json. Resources never build error responses
 * themselves; the idempotency layer uses {@link #toProblem} too, so a stored business failure is byte for byte
 * what the first caller saw. No class name or stack trace ever reaches a client.
 */
@ApplicationScoped
public class ProblemMapper {

    private static final Logger LOG = Logger.getLogger(ProblemMapper.class);
    /** Seconds a client should wait before retrying a 503. */
    public static final String RETRY_AFTER_SECONDS = "1";

    private final ObjectMapper json;
    private final List<ProblemTranslator> features;

    public ProblemMapper(ObjectMapper json, @All List<ProblemTranslator> features) {
        this.json = json;
        this.features = List.copyOf(features);
    }

    /**
     * Jackson and Quarkus REST register their own mappers for these types (answering without a problem body); a
     * mapper declared for the exact type wins over theirs.
     */
    @ServerExceptionMapper({ Throwable.class, WebApplicationException.class, MismatchedInputException.class,
            JsonProcessingException.class })
    public Response map(Throwable failure) {
        return toReply(failure).toResponse();
    }

    @ServerExceptionMapper
    public Response mapAuthentication(AuthenticationFailedException failure) {
        return toReply(failure).toResponse();
    }

    @ServerExceptionMapper
    public Response mapUnauthorized(UnauthorizedException failure) {
        return toReply(failure).toResponse();
    }

    @ServerExceptionMapper
    public Response mapForbidden(ForbiddenException failure) {
        return toReply(failure).toResponse();
    }

    public Reply toReply(Throwable failure) {
        Throwable cause = unwrap(failure);
        Problem problem = toProblem(cause);
        String retryAfter = cause instanceof ProblemException pe ? pe.retryAfter() : null;
        if (problem.status() == 503 && retryAfter == null) {
            retryAfter = RETRY_AFTER_SECONDS;
        }
        return toReply(problem, retryAfter);
    }

    public Reply toReply(Problem problem, String retryAfter) {
        Map<String, String> headers = retryAfter == null ? Map.of() : Map.of("Retry-After", retryAfter);
        if (problem.status() == 401 && problem.type().equals(ProblemType.UNAUTHORIZED.uri())) {
            headers = Map.of("WWW-Authenticate", "Bearer");
        }
        return new Reply(problem.status(), Problem.MEDIA_TYPE, headers, render(problem));
    }

    public Problem toProblem(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof ProblemException pe) {
            return pe.problem();
        }
        if (cause instanceof AuthenticationFailedException
                || cause instanceof UnauthorizedException) {
            return Problem.of(ProblemType.UNAUTHORIZED, "Send a valid, unexpired bearer token");
        }
        if (cause instanceof ForbiddenException) {
            return Problem.of(ProblemType.FORBIDDEN, cause.getMessage() == null || cause.getMessage().isBlank()
                    ? "Your role does not allow this operation" : cause.getMessage());
        }
        for (ProblemTranslator feature : features) {
            Problem problem = feature.toProblem(cause);
            if (problem != null) {
                return problem;
            }
        }
        if (cause instanceof UnrecognizedPropertyException unknown) {
            return Problem.of(ProblemType.INVALID_REQUEST, "Unknown field '" + unknown.getPropertyName()
                    + "': only documented fields may be sent").with("field", unknown.getPropertyName());
        }
        if (cause instanceof JsonProcessingException) {
            return JsonProblems.of((JsonProcessingException) cause);
        }
        if (cause instanceof WebApplicationException wae && wae.getCause() instanceof JsonProcessingException body) {
            return JsonProblems.of(body); // Quarkus REST wraps Jackson's parse and mapping failures in a 400
        }
        if (cause instanceof WebApplicationException wae) {
            return fromStatus(wae.getResponse().getStatus());
        }
        if (DatabaseFailures.isDataError(cause)) {
            // a backstop: the edge refuses such values first (SafeText), so this means a check is missing there
            LOG.warnf("The database refused a value: %s", cause.toString());
            return Problem.of(ProblemType.INVALID_REQUEST, "A value in the request cannot be stored");
        }
        if (DatabaseFailures.isIntegrityViolation(cause)) {
            // a statement decides what it can (a refund that does not fit writes nothing); a constraint that still
            // refuses a row met a race the statement did not foresee: a conflict, named, never a silent 500
            LOG.warnf("A constraint refused a write (SQLSTATE %s, %s); answered 409 conflicting-write",
                    DatabaseFailures.sqlState(cause), DatabaseFailures.constraint(cause));
            return Problem.of(ProblemType.CONFLICTING_WRITE, "Another request changed what this one depends on, and"
                    + " a rule of the stored data refused the write; nothing was written: read the resource and decide"
                    + " again");
        }
        if (DatabaseFailures.isTransient(cause)) {
            LOG.warnf("Transient failure answered with 503: %s", cause.toString());
            return Problem.of(ProblemType.SERVICE_UNAVAILABLE, "A dependency is unavailable; retry later");
        }
        LOG.error("Unexpected failure", cause);
        return Problem.of(ProblemType.INTERNAL, "An unexpected error occurred");
    }

    /** Mutiny wraps failures of combined operations; the first one is what happened. */
    public static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while (t instanceof CompositeException ce && !ce.getCauses().isEmpty()) {
            t = ce.getCauses().get(0);
        }
        return t;
    }

    private static Problem fromStatus(int status) {
        ProblemType type = switch (status) {
            case 400 -> ProblemType.MALFORMED_BODY;
            case 404 -> ProblemType.NOT_FOUND;
            case 405 -> ProblemType.METHOD_NOT_ALLOWED;
            case 406 -> ProblemType.NOT_ACCEPTABLE;
            case 413 -> ProblemType.PAYLOAD_TOO_LARGE;
            case 415 -> ProblemType.UNSUPPORTED_MEDIA_TYPE;
            default -> status >= 500 ? ProblemType.SERVICE_UNAVAILABLE : ProblemType.INVALID_REQUEST;
        };
        return Problem.of(type, type.title());
    }

    private byte[] render(Problem problem) {
        try {
            return json.writeValueAsBytes(problem);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
