package io.orderflow.common.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.orderflow.common.Reply;
import io.orderflow.common.DatabaseFailures;
import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Locale;
import org.jboss.logging.Logger;

/**
 * Requests the HTTP/1.1 codec read a head of but cannot read to their end, which reach the routes as failures: a
 * chunked body whose chunk size is no hex number ({@code ZZ}, {@code FFFFFFFFFFFFFFFFFF}), and the HTTP/2 connection
 * preface ({@code PRI * HTTP/2.0}) sent to this HTTP/1.1-only port. Quarkus's own failure handler answered them with
 * its error page and an ERROR with a stack trace each; they are the client's fault, so they are answered here, first,
 * with a 400 problem and a closed connection (the rest of what was sent cannot be read as HTTP), and logged at DEBUG.
 * Requests the codec refuses before any route runs are docs/failure-behaviour.md's.
 */
@ApplicationScoped
public class MalformedRequests {

    private static final Logger LOG = Logger.getLogger(MalformedRequests.class);

    /** Ahead of Quarkus's failure handler and of every other route's. */
    private static final int FIRST = Integer.MIN_VALUE + 40;

    private final ProblemMapper problems;

    public MalformedRequests(ProblemMapper problems) {
        this.problems = problems;
    }

    void install(@Observes Router router) {
        router.route().order(FIRST).failureHandler(this::refuse);
    }

    private void refuse(RoutingContext context) {
        if (context.failure() instanceof HttpClosedException) {
            // the connection is gone (closed after a malformed request's answer, or by the client): no one to answer,
            // nothing to report
            LOG.debugf("%s %s: the connection closed before the request was read", context.request().method(),
                    context.request().path());
            return;
        }
        String why = why(context);
        if (why == null || context.response().headWritten()) {
            context.next();
            return;
        }
        LOG.debugf("A malformed request (%s) answered 400: %s", why, context.failure());
        Reply reply = problems.toReply(Problem.of(ProblemType.INVALID_REQUEST, why), null);
        if (context.request().connection() instanceof ConnectionBase connection && isCodecFailure(context)) {
            // the codec failed mid-read: Vert.x closes the connection as soon as this returns, dropping what was
            // written but not yet flushed (it flushes at the end of a read), so the answer goes to the channel now
            FullHttpResponse answer = new DefaultFullHttpResponse(io.netty.handler.codec.http.HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(reply.status()), Unpooled.wrappedBuffer(reply.body()));
            answer.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType())
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, reply.body().length)
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            connection.channelHandlerContext().writeAndFlush(answer);
            return;
        }
        reply.endClosing(context.request());
    }

    /** What is wrong with the request as HTTP/1.1, or null when its failure is not the codec's. */
    static String why(RoutingContext context) {
        HttpVersion version = context.request().version();
        if (version != HttpVersion.HTTP_1_1 && version != HttpVersion.HTTP_1_0) {
            return "This port speaks HTTP/1.1 only (no cleartext HTTP/2)";
        }
        return isCodecFailure(context)
                ? "The chunked body is malformed: a chunk size is not a hexadecimal number of bytes" : null;
    }

    /** The codec could not read the rest of the request (a chunk size that is no number, a chunk too long). */
    private static boolean isCodecFailure(RoutingContext context) {
        for (Throwable failure : DatabaseFailures.causes(context.failure())) {
            if (failure instanceof DecoderException || failure instanceof TooLongFrameException
                    || failure instanceof NumberFormatException && failure.getMessage() != null
                            && failure.getMessage().toLowerCase(Locale.ROOT).contains("chunk")) {
                return true;
            }
        }
        return false;
    }
}
