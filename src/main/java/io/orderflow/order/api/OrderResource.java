package io.orderflow.order.api;

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
import io.orderflow.order.TransitionCommand;
import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderNotFoundException;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.order.persistence.OrderRepository;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.jboss.resteasy.reactive.RestHeader;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;

/** The order API. Every POST goes through the idempotency gate and, for moves, the one transition path. */
@Path("/orders")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({ Callers.CUSTOMER, Callers.OPERATOR })
public class OrderResource {

    static final int DEFAULT_PAGE = 20;
    static final int MAX_PAGE = 100;

    private final OrderService service;
    private final OrderRepository orders;
    private final IdempotencyGate gate;
    private final OrderReplies replies;
    private final Callers callers;
    private final MicrosecondClock time;
    private final Clock clock;

    public OrderResource(OrderService service, OrderRepository orders, IdempotencyGate gate, OrderReplies replies,
            Callers callers, MicrosecondClock time, Clock clock) {
        this.service = service;
        this.orders = orders;
        this.gate = gate;
        this.replies = replies;
        this.callers = callers;
        this.time = time;
        this.clock = clock;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Callers.CUSTOMER)
    public Uni<Response> create(@RestHeader(IdempotencyKeys.HEADER) String key, OrderRequests.CreateOrder body) {
        OrderRequests.CreateOrder request = required(body);
        Callers.Caller caller = callers.current();
        String customerId = request.customerId() == null ? caller.name() : request.customerId();
        if (!customerId.equals(caller.name())) {
            throw ProblemException.of(ProblemType.FORBIDDEN, "Customers create orders for themselves only");
        }
        Order order = Order.create(Ids.uuidV7(clock), customerId, request.currency(), request.lineItems(),
                time.now());
        KeyedRequest keyed = new KeyedRequest(key, true, caller.scope(), "POST /orders", "",
                replies.canonical(request), RetentionTier.ORDERS, order.id(),
                row -> replies.created(service.recordedOrder(row)));
        return gate.execute(keyed, claim -> service.create(order, claim, replies::created)).map(Reply::toResponse);
    }

    @GET
    @Path("{id}")
    public Uni<Response> get(@RestPath String id) {
        return service.find(orderId(id), callers.current().owner()).map(order -> replies.ok(order).toResponse());
    }

    @GET
    public Uni<OrderPage> list(@RestQuery String customerId, @RestQuery String status, @RestQuery String limit,
            @RestQuery String after) {
        int size = limit == null ? DEFAULT_PAGE : pageSize(limit);
        if (size < 1 || size > MAX_PAGE) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, "limit must be between 1 and " + MAX_PAGE);
        }
        OrderStatus wanted = status == null ? null : parse(OrderStatus.class, status, "status");
        String owner = callers.current().owner();
        if (owner != null && customerId != null && !customerId.equals(owner)) {
            throw ProblemException.of(ProblemType.FORBIDDEN, "Customers list their own orders only");
        }
        String customer = owner != null ? owner : customerId;
        UUID from = after == null ? null : uuid(after, "after");
        return orders.page(customer, wanted, from, size).map(page -> new OrderPage(
                page.stream().map(OrderView::of).toList(),
                page.size() == size ? page.get(page.size() - 1).id() : null));
    }

    @GET
    @Path("{id}/transitions")
    public Uni<List<TransitionView>> transitions(@RestPath String id) {
        UUID orderId = orderId(id);
        return service.find(orderId, callers.current().owner()).chain(order -> orders.history(orderId))
                .map(history -> history.stream().map(TransitionView::of).toList());
    }

    @POST
    @Path("{id}/pay")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Callers.CUSTOMER)
    public Uni<Response> pay(@RestPath String id, @RestHeader(IdempotencyKeys.HEADER) String key,
            @RestHeader("If-Match") String ifMatch, OrderRequests.Pay body) {
        OrderRequests.Pay request = required(body);
        return move(id, key, ifMatch, OrderEvent.PAY, new EventDetails.Pay(request.provider()), request,
                RetentionTier.PAYMENTS);
    }

    @POST
    @Path("{id}/ship")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Callers.OPERATOR)
    public Uni<Response> ship(@RestPath String id, @RestHeader(IdempotencyKeys.HEADER) String key,
            @RestHeader("If-Match") String ifMatch, OrderRequests.Ship body) {
        OrderRequests.Ship request = required(body);
        return move(id, key, ifMatch, OrderEvent.SHIP,
                new EventDetails.Ship(request.carrier(), request.trackingNumber()), request, RetentionTier.ORDERS);
    }

    @POST
    @Path("{id}/deliver")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Callers.OPERATOR)
    public Uni<Response> deliver(@RestPath String id, @RestHeader(IdempotencyKeys.HEADER) String key,
            @RestHeader("If-Match") String ifMatch, OrderRequests.Deliver body) {
        return move(id, key, ifMatch, OrderEvent.DELIVER, new EventDetails.None(),
                new OrderRequests.Deliver(), RetentionTier.ORDERS);
    }

    @POST
    @Path("{id}/cancel")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Response> cancel(@RestPath String id, @RestHeader(IdempotencyKeys.HEADER) String key,
            @RestHeader("If-Match") String ifMatch, OrderRequests.Cancel body) {
        OrderRequests.Cancel request = body == null ? new OrderRequests.Cancel(null) : body;
        return move(id, key, ifMatch, OrderEvent.CANCEL, new EventDetails.Cancel(request.reason()), request,
                RetentionTier.ORDERS);
    }

    private Uni<Response> move(String id, String key, String ifMatch, OrderEvent event,
            EventDetails details, Object request, RetentionTier tier) {
        UUID orderId = orderId(id);
        Long version = IfMatch.version(ifMatch);
        Callers.Caller caller = callers.current();
        String operation = "POST /orders/{id}/" + event.name().toLowerCase();
        KeyedRequest keyed = new KeyedRequest(key, event.requiresKey(), caller.scope(), operation, orderId.toString(),
                replies.canonical(request), tier, orderId, row -> replies.ok(service.recordedOrder(row)));
        return gate.execute(keyed, claim -> service.transition(
                new TransitionCommand(orderId, event, details, version, TransitionCommand.API,
                        caller.name(), claim == null ? null : claim.requestKey(), caller.owner()),
                claim, result -> replies.ok(result.order(), result.additions())).map(OrderService.Transitioned::reply))
                .chain(reply -> key == null || !reply.isReplayed() ? Uni.createFrom().item(reply)
                        : service.withReplayReply(new TransitionCommand(orderId, event, details, version,
                                TransitionCommand.API, caller.name(), IdempotencyKeys.parse(key), caller.owner()),
                                reply))
                .map(Reply::toResponse);
    }

    private static <T> T required(T body) {
        if (body == null) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, "A JSON body is required");
        }
        return body;
    }

    /** A malformed id cannot name an order: answered as not found. */
    private static UUID orderId(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new OrderNotFoundException(id);
        }
    }

    /** Taken as text: a number JAX-RS cannot convert would otherwise be a 404. */
    private static int pageSize(String limit) {
        try {
            return Integer.parseInt(limit);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static UUID uuid(String value, String name) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, name + " must be an order id (UUID)");
        }
    }

    private static <E extends Enum<E>> E parse(Class<E> type, String value, String name) {
        try {
            return Enum.valueOf(type, value);
        } catch (IllegalArgumentException e) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST,
                    name + " must be one of " + Arrays.toString(type.getEnumConstants()));
        }
    }
}
