package io.orderflow.payment.refunds;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.common.Callers;
import io.orderflow.common.Ids;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.Reply;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.idempotency.IdempotencyGate;
import io.orderflow.idempotency.IdempotencyKeys;
import io.orderflow.idempotency.KeyedRequest;
import io.orderflow.idempotency.RetentionTier;
import io.orderflow.order.OrderService;
import io.orderflow.order.domain.OrderNotFoundException;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.resteasy.reactive.RestHeader;
import org.jboss.resteasy.reactive.RestPath;

/**
 * Refunds of an order: operators issue them (202: the provider is asked afterwards, by {@code RefundWorker}); the
 * order's customer and operators read them. A POST goes through the idempotency gate, its record written in the
 * statement that records the refund, so a repeat sends nothing new.
 */
@Path("/orders/{id}/refunds")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({ Callers.CUSTOMER, Callers.OPERATOR })
public class RefundResource {

    static final int MAX_REASON = 500;

    /** The body of a POST: minor units of the order's currency, and why. */
    public record IssueRefund(Long amount, String reason) {
    }

    public record Items(List<RefundView> items) {
    }

    private final Refunds refunds;
    private final OrderService orders;
    private final IdempotencyGate gate;
    private final Callers callers;
    private final MicrosecondClock time;
    private final Clock clock;
    private final ObjectMapper json;

    public RefundResource(Refunds refunds, OrderService orders, IdempotencyGate gate, Callers callers, MicrosecondClock time,
            Clock clock, ObjectMapper json) {
        this.refunds = refunds;
        this.orders = orders;
        this.gate = gate;
        this.callers = callers;
        this.time = time;
        this.clock = clock;
        this.json = json;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Callers.OPERATOR)
    public Uni<Response> issue(@RestPath String id, @RestHeader(IdempotencyKeys.HEADER) String key,
            IssueRefund body) {
        UUID orderId = orderId(id);
        IssueRefund request = valid(body);
        Callers.Caller caller = callers.current();
        Refunds.Issue issue = new Refunds.Issue(Ids.uuidV7(clock), orderId, request.amount(), request.reason(),
                caller.name(), time.now());
        KeyedRequest keyed = new KeyedRequest(key, true, caller.scope(), "POST /orders/{id}/refunds",
                orderId.toString(), bytes(request), RetentionTier.PAYMENTS, orderId,
                row -> accepted(refunds.recorded(row)));
        return gate.execute(keyed, claim -> refunds.issue(issue, claim.sameStatementRecord()).chain(issued -> {
            if (issued.isEmpty()) {
                return refused(orderId, request.amount());
            }
            claim.markRecorded();
            return Uni.createFrom().item(accepted(issued.get(0)));
        })).map(Reply::toResponse);
    }

    /** The order's refunds; its customer sees only their own fields ({@link RefundView#forCustomer()}). */
    @GET
    public Uni<Items> list(@RestPath String id) {
        UUID orderId = orderId(id);
        Callers.Caller caller = callers.current();
        return orders.find(orderId, caller.owner()).chain(order -> refunds.ofOrder(orderId))
                .map(found -> new Items(found.stream().map(refund -> shownTo(caller, refund)).toList()));
    }

    @GET
    @Path("{refundId}")
    public Uni<RefundView> get(@RestPath String id, @RestPath String refundId) {
        UUID orderId = orderId(id);
        UUID wanted = Ids.parseOrNull(refundId);
        Callers.Caller caller = callers.current();
        return orders.find(orderId, caller.owner())
                .chain(order -> wanted == null ? Uni.createFrom().nullItem() : refunds.find(wanted))
                .map(refund -> {
                    if (refund == null || !refund.orderId().equals(orderId)) {
                        throw ProblemException.of(ProblemType.NOT_FOUND, "No refund " + refundId + " of order " + id);
                    }
                    return shownTo(caller, refund);
                });
    }

    private static RefundView shownTo(Callers.Caller caller, RefundView refund) {
        return caller.operator() ? refund : refund.forCustomer();
    }

    /** Nothing was recorded: the order is not there (or not the caller's), holds no capture, or too little is left. */
    private Uni<Reply> refused(UUID orderId, long amount) {
        return orders.find(orderId, null).chain(order -> refunds.leftToRefund(orderId)).map(left -> {
            if (left == null) {
                throw ProblemException.of(ProblemType.REFUND_NOT_ALLOWED,
                        "Order " + orderId + " holds no capture that can be refunded in its status");
            }
            throw ProblemException.of(ProblemType.REFUND_EXCEEDS_CAPTURE, "A refund of " + amount
                    + " is more than the " + left + " left to refund of the order's capture; nothing was sent");
        });
    }

    private Reply accepted(RefundView refund) {
        return new Reply(202, MediaType.APPLICATION_JSON,
                Map.of("Location", "/orders/" + refund.orderId() + "/refunds/" + refund.id()), body(refund));
    }

    private static IssueRefund valid(IssueRefund body) {
        if (body == null) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, "A JSON body is required");
        }
        if (body.amount() == null || body.amount() < 1) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST,
                    "amount must be a positive integer of minor units");
        }
        if (body.reason() == null || body.reason().isBlank() || body.reason().length() > MAX_REASON) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST,
                    "reason must be a text of 1 to " + MAX_REASON + " characters");
        }
        return body;
    }

    private byte[] bytes(Object value) {
        try {
            return json.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private byte[] body(RefundView refund) {
        return bytes(refund);
    }

    /** A malformed id cannot name an order: answered as not found. */
    private static UUID orderId(String id) {
        UUID parsed = Ids.parseOrNull(id);
        if (parsed == null) {
            throw new OrderNotFoundException(id);
        }
        return parsed;
    }

}
