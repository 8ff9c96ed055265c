package io.orderflow.order;

import io.orderflow.idempotency.IdempotencyKeys;
import io.orderflow.order.domain.Order;
import org.jboss.logging.Logger;

/**
 * One INFO line per applied transition, in the category {@value #CATEGORY} (docs/operations.md): the order, the event,
 * the outcome, the move, who made it and a hash of the request's key — never the key itself (a client's key may be
 * guessable, and the replay store answers to it), never details, secrets or provider payloads. Nothing is formatted
 * or hashed when the category is off.
 */
final class TransitionLog {

    static final String CATEGORY = "io.orderflow.transitions";
    private static final Logger LOG = Logger.getLogger(CATEGORY);

    private TransitionLog() {
    }

    static void applied(TransitionCommand command, Order moved) {
        if (LOG.isInfoEnabled()) {
            // concatenated, not a format: java.util.Formatter would parse the pattern again for every transition
            LOG.info("order " + command.orderId() + " " + command.event() + " applied: " + moved.status()
                    + ", version " + moved.version() + ", actor " + command.actor() + ", source " + command.source()
                    + ", key " + keyHash(command.requestKey()));
        }
    }

    /** The first 16 hex digits of the key's SHA-256: enough to match lines of one request, not to recover it. */
    static String keyHash(String requestKey) {
        return requestKey == null ? "none" : "sha256:" + IdempotencyKeys.fingerprint(requestKey).substring(0, 16);
    }
}
