package io.orderflow.common.http;

import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The documented request limits, enforced ahead of every route so that the answer is a problem: a path and query
 * longer than {@code orders.http.max-uri-length} is a 414, headers larger than {@code orders.http.max-header-size}
 * a 431, a body larger than {@code orders.http.max-body-size} a 413 — judged from its Content-Length before one byte
 * of it is read, or, sent chunked without one, read here as it arrives up to that size and no further. A refusal
 * closes the connection, so the rest of the body is never read. Vert.x's own codec limits
 * ({@code quarkus.http.limits.*}) are set well above these, so they only refuse (with an empty body, before any route
 * runs) what is far beyond anything documented; Quarkus's own 1 MB body check runs after this one and never decides.
 */
@ApplicationScoped
public class EdgeLimits {

    /** Ahead of Quarkus's own routes (authentication, REST). */
    private static final int FIRST = Integer.MIN_VALUE + 100;

    private final int maxUriLength;
    private final long maxHeaderBytes;
    private final long maxBodyBytes;
    private final BodyHandler chunkedBodies;
    private final ProblemMapper problems;

    public EdgeLimits(@ConfigProperty(name = "orders.http.max-uri-length", defaultValue = "4096") int maxUriLength,
            @ConfigProperty(name = "orders.http.max-header-size", defaultValue = "16K") MemorySize maxHeaderSize,
            @ConfigProperty(name = "orders.http.max-body-size", defaultValue = "64K") MemorySize maxBodySize,
            ProblemMapper problems) {
        this.maxUriLength = maxUriLength;
        this.maxHeaderBytes = maxHeaderSize.asLongValue();
        this.maxBodyBytes = maxBodySize.asLongValue();
        // read into memory, never to files; REST takes a body read here as the request's body
        this.chunkedBodies = BodyHandler.create(false).setBodyLimit(maxBodyBytes);
        this.problems = problems;
    }

    void install(@Observes Router router) {
        router.route().order(FIRST).handler(this::check);
        router.route().order(FIRST + 1).handler(this::readChunkedBody).failureHandler(this::chunkedBodyTooLarge);
    }

    private void readChunkedBody(RoutingContext context) {
        HttpServerRequest request = context.request();
        if (request.headers().contains(HttpHeaders.CONTENT_LENGTH)
                || !request.headers().contains(HttpHeaders.TRANSFER_ENCODING)) {
            context.next();
            return;
        }
        chunkedBodies.handle(context);
    }

    /** The body handler fails the request with 413 once a chunked body passes the limit; anything else goes on. */
    private void chunkedBodyTooLarge(RoutingContext context) {
        if (context.statusCode() != 413 || context.response().headWritten()) {
            context.next();
            return;
        }
        refuse(context, Problem.of(ProblemType.PAYLOAD_TOO_LARGE, "The body may be at most " + maxBodyBytes
                + " bytes"));
    }

    private void check(RoutingContext context) {
        HttpServerRequest request = context.request();
        if (request.uri().length() > maxUriLength) {
            refuse(context, Problem.of(ProblemType.URI_TOO_LONG,
                    "The path and query may be at most " + maxUriLength + " characters"));
            return;
        }
        long headerBytes = 0;
        for (Map.Entry<String, String> header : request.headers()) {
            headerBytes += header.getKey().length() + header.getValue().length() + 4; // ": " and CRLF
        }
        if (headerBytes > maxHeaderBytes) {
            refuse(context, Problem.of(ProblemType.HEADERS_TOO_LARGE,
                    "The headers may be at most " + maxHeaderBytes + " bytes"));
            return;
        }
        String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        Problem body = length == null ? null : judgeDeclaredLength(length);
        if (body != null) {
            refuse(context, body);
            return;
        }
        context.next();
    }

    private Problem judgeDeclaredLength(String length) {
        try {
            return Long.parseLong(length.trim()) <= maxBodyBytes ? null
                    : Problem.of(ProblemType.PAYLOAD_TOO_LARGE, "The body may be at most " + maxBodyBytes + " bytes");
        } catch (NumberFormatException e) {
            // not reached through Vert.x 4.5's codec, which refuses such a request itself before any route (an empty
            // 400, CodecRefusalsTest); kept so that a codec that let one through would get a problem, not a 500
            return Problem.of(ProblemType.INVALID_REQUEST, "Content-Length is not a number");
        }
    }

    /** Answers and closes: the rest of what the client sent is not read. */
    private void refuse(RoutingContext context, Problem problem) {
        problems.toReply(problem, null).endClosing(context.request());
    }
}
