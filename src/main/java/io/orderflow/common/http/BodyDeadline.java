package io.orderflow.common.http;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * A request body must arrive whole within {@code orders.http.body-timeout} of its headers. The idle timeout catches
 * only a connection that sends nothing at all; one byte every few seconds would hold a connection, and the request's
 * slot, for ever. Past the bound the connection is closed without an answer: no route has run (a body is read whole
 * before its operation starts), so nothing was written, and a client that sends the same request again with its
 * Idempotency-Key gets it applied once. No answer, because one written while the request is still being read may be
 * lost in the reset anyway, and a client this slow is broken or hostile.
 */
@ApplicationScoped
public class BodyDeadline {

    private static final Logger LOG = Logger.getLogger(BodyDeadline.class);

    /** Ahead of EdgeLimits, which reads a chunked body itself. */
    private static final int ORDER = Integer.MIN_VALUE + 99;

    private final long deadlineMillis;

    public BodyDeadline(@ConfigProperty(name = "orders.http.body-timeout", defaultValue = "30s") Duration deadline) {
        this.deadlineMillis = Math.max(1, deadline.toMillis());
    }

    void install(@Observes Router router) {
        router.route().order(ORDER).handler(this::watch);
    }

    private void watch(RoutingContext context) {
        HttpServerRequest request = context.request();
        if (!request.isEnded() && hasBody(request)) {
            long timer = context.vertx().setTimer(deadlineMillis, fired -> {
                if (!request.isEnded()) {
                    LOG.debugf("%s %s: the body did not arrive within %d ms; the connection is closed",
                            request.method(), request.path(), deadlineMillis);
                    request.connection().close();
                }
            });
            context.addEndHandler(done -> context.vertx().cancelTimer(timer));
        }
        context.next();
    }

    private static boolean hasBody(HttpServerRequest request) {
        String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        return length != null ? !length.trim().equals("0") : request.headers().contains(HttpHeaders.TRANSFER_ENCODING);
    }
}
