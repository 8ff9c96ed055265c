package io.orderflow.webhooks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.common.Callers;
import io.orderflow.common.Ids;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.Reply;
import io.orderflow.common.http.PageParams;
import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.events.EventTypes;
import io.orderflow.events.EventsConfig;
import io.orderflow.idempotency.IdempotencyGate;
import io.orderflow.idempotency.IdempotencyKeys;
import io.orderflow.idempotency.KeyedRequest;
import io.orderflow.idempotency.RetentionTier;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.resteasy.reactive.RestHeader;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;

/**
 * Webhook endpoints, for operators: register one (its secret shown once, in the answer), list, read, delete,
 * rotate its secret, enable it again after it was disabled; read its delivery log and resend one event. A URL is
 * checked against {@link WebhookTargets}' rule before anything is stored.
 */
@RolesAllowed(Callers.OPERATOR)
@Path("/webhook-endpoints")
@Produces(MediaType.APPLICATION_JSON)
public class WebhookEndpointResource {

    static final int MAX_PAGE = 100;
    static final int DEFAULT_PAGE = 20;
    static final int MAX_DESCRIPTION = 500;
    static final int MAX_TYPES = 50;

    /** The body of a registration: where, which types (absent or empty: all), and a note for operators. */
    public record Register(String url, List<String> types, String description) {
    }

    public record Page(List<WebhookEndpointView> items, String next) {
    }

    public record AttemptPage(List<WebhookDeliveries.Attempt> items, String next) {
    }

    private final WebhookEndpoints endpoints;
    private final WebhookDeliveries deliveries;
    private final WebhookDispatcher dispatcher;
    private final OwedDeliveries owed;
    private final WebhookSender sender;
    private final IdempotencyGate gate;
    private final Callers callers;
    private final MicrosecondClock time;
    private final Clock clock;
    private final ObjectMapper json;
    private final EventsConfig.Webhooks config;

    public WebhookEndpointResource(WebhookEndpoints endpoints, WebhookDeliveries deliveries,
            WebhookDispatcher dispatcher, OwedDeliveries owed, WebhookSender sender, IdempotencyGate gate,
            Callers callers, MicrosecondClock time, Clock clock, ObjectMapper json, EventsConfig config) {
        this.endpoints = endpoints;
        this.deliveries = deliveries;
        this.dispatcher = dispatcher;
        this.owed = owed;
        this.sender = sender;
        this.gate = gate;
        this.callers = callers;
        this.time = time;
        this.clock = clock;
        this.json = json;
        this.config = config.webhooks();
    }

    /**
     * Idempotency-Key required: a retried registration answers the endpoint the first one made, as it is now (its
     * current secret; 404 once deleted).
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Response> register(@RestHeader(IdempotencyKeys.HEADER) String key, Register body) {
        Register request = valid(body);
        Callers.Caller caller = callers.current();
        KeyedRequest keyed = new KeyedRequest(key, true, caller.scope(), "POST /webhook-endpoints", "",
                bytes(request), RetentionTier.ORDERS, null, record -> named(201, endpoints.recorded(record)));
        // the address rule inside the gate: a replay answers the first registration without a second DNS lookup
        return gate.execute(keyed, claim -> checked(request.url()).chain(() -> {
            WebhookEndpoints.Registration registration = new WebhookEndpoints.Registration(Ids.uuidV7(clock),
                    request.url(), request.types() == null || request.types().isEmpty() ? null : request.types(),
                    request.description(), WebhookSecrets.generate(), time.now());
            return endpoints.create(registration, claim.sameStatementRecord(), config.maxEnabledEndpoints())
                    .map(endpoint -> {
                        if (endpoint == null) {
                            throw limitReached();
                        }
                        claim.markRecorded();
                        dispatcher.endpointsChanged();
                        return created(endpoint);
                    });
        })).chain(this::asItIsNow).map(Reply::toResponse);
    }

    @GET
    public Uni<Page> list(@RestQuery String limit, @RestQuery String after) {
        int size = PageParams.size(limit, DEFAULT_PAGE, MAX_PAGE);
        UUID from = PageParams.uuidAfter(after);
        return endpoints.page(from, size).map(found -> new Page(
                found.stream().map(endpoint -> WebhookEndpointView.of(endpoint, false)).toList(),
                found.size() == size ? found.get(found.size() - 1).id().toString() : null));
    }

    @GET
    @Path("{id}")
    public Uni<WebhookEndpointView> get(@RestPath String id) {
        UUID endpointId = endpointId(id);
        return endpoints.find(endpointId).map(found -> WebhookEndpointView.of(existing(found, id), false));
    }

    /**
     * Marks it deleted and cancels what it was still owed; a repeat answers 204 too. Its answers other than 204 are
     * problems only, so a client may accept problem+json alone.
     */
    @DELETE
    @Path("{id}")
    @Produces({ MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE })
    public Uni<Response> delete(@RestPath String id) {
        UUID endpointId = endpointId(id);
        return endpoints.delete(endpointId, time.now()).map(existed -> {
            if (!existed) {
                throw notFound(id);
            }
            dispatcher.endpointsChanged();
            return Response.noContent().build();
        });
    }

    /**
     * A new secret, shown in the answer; the old one keeps signing beside it for
     * {@link EventsConfig.Webhooks#rotationOverlap()}. With an Idempotency-Key a retry rotates nothing more and
     * answers the endpoint as it is now (its current secret; 404 once deleted).
     */
    @POST
    @Path("{id}/rotate-secret")
    public Uni<Response> rotate(@RestPath String id, @RestHeader(IdempotencyKeys.HEADER) String key) {
        UUID endpointId = endpointId(id);
        Callers.Caller caller = callers.current();
        KeyedRequest keyed = new KeyedRequest(key, false, caller.scope(), "POST /webhook-endpoints/{id}/rotate-secret",
                endpointId.toString(), new byte[0], RetentionTier.ORDERS, null,
                record -> named(200, endpoints.recorded(record)));
        return gate.execute(keyed, claim -> {
            Instant now = time.now();
            return endpoints.rotate(endpointId, WebhookSecrets.generate(), now.plus(config.rotationOverlap()), now,
                    claim == null ? null : claim.sameStatementRecord()).map(endpoint -> {
                        if (endpoint == null) {
                            throw notFound(id);
                        }
                        if (claim != null) {
                            claim.markRecorded();
                        }
                        dispatcher.endpointsChanged();
                        return shown(endpoint);
                    });
        }).chain(this::asItIsNow).map(Reply::toResponse);
    }

    /** Enabled again (idempotent) when there is room; what it is still owed is sent at once. */
    @POST
    @Path("{id}/enable")
    public Uni<WebhookEndpointView> enable(@RestPath String id) {
        UUID endpointId = endpointId(id);
        return endpoints.enable(endpointId, time.now(), config.maxEnabledEndpoints()).map(found -> {
            if (found == null) {
                throw notFound(id);
            }
            if (!found.enabled()) {
                throw limitReached();
            }
            dispatcher.endpointsChanged();
            return WebhookEndpointView.of(found.endpoint(), false);
        });
    }

    /** Every attempt of every delivery to the endpoint, oldest first. */
    @GET
    @Path("{id}/deliveries")
    public Uni<AttemptPage> attempts(@RestPath String id, @RestQuery String limit, @RestQuery String after) {
        UUID endpointId = endpointId(id);
        int size = PageParams.size(limit, DEFAULT_PAGE, MAX_PAGE);
        long from = PageParams.numberAfter(after);
        return endpoints.find(endpointId).chain(found -> {
            existing(found, id);
            return deliveries.attempts(endpointId, from, size);
        }).map(found -> new AttemptPage(found,
                found.size() == size ? String.valueOf(found.get(found.size() - 1).id()) : null));
    }

    /** Sends the event to the endpoint again now and answers the attempt; 404 when it was never owed the event. */
    @POST
    @Path("{id}/deliveries/{eventId}/retry")
    public Uni<WebhookDeliveries.Attempt> retry(@RestPath String id, @RestPath String eventId) {
        UUID endpointId = endpointId(id);
        UUID event = Ids.parseOrNull(eventId);
        if (event == null) {
            throw ProblemException.of(ProblemType.NOT_FOUND, "No delivery of event " + eventId + " to " + id);
        }
        return owed.retryNow(endpointId, event).map(attempt -> {
            if (attempt == null) {
                throw ProblemException.of(ProblemType.NOT_FOUND, "No delivery of event " + eventId + " to " + id);
            }
            return attempt;
        });
    }

    /** The URL's rule, with the DNS lookup off the event loop; a refusal is a 400 that names the rule. */
    private Uni<Void> checked(String url) {
        return sender.lookUp(url).onFailure(WebhookSender.RefusedTarget.class)
                .transform(refused -> ProblemException.of(ProblemType.INVALID_REQUEST, refused.getMessage()))
                .replaceWithVoid();
    }

    private Reply created(WebhookEndpoint endpoint) {
        return reply(201, endpoint, Map.of("Location", "/webhook-endpoints/" + endpoint.id()));
    }

    private Reply shown(WebhookEndpoint endpoint) {
        return reply(200, endpoint, Map.of());
    }

    /**
     * An answer showing a secret: {@code Cache-Control: no-store}, so that the idempotency layer keeps it out of
     * Redis and out of the replica's memory, as the record keeps it out of PostgreSQL; a repeat reads the endpoint.
     */
    private Reply reply(int status, WebhookEndpoint endpoint, Map<String, String> headers) {
        return new Reply(status, MediaType.APPLICATION_JSON, headers, bytes(WebhookEndpointView.of(endpoint, true)))
                .withHeader("Cache-Control", "no-store");
    }

    /** What a stored record renders: which endpoint, read as it is now by {@link #asItIsNow}. */
    private Reply named(int status, UUID endpointId) {
        return new Reply(status, MediaType.APPLICATION_JSON, Map.of(), bytes(Map.of("id", endpointId)));
    }

    /**
     * A repeat of a registration or a rotation (its record replayed, or a copy's answer handed over) answers the
     * endpoint as it is now: its current secret while it exists, 404 once it was deleted. A first answer goes as it is.
     */
    private Uni<Reply> asItIsNow(Reply reply) {
        if (!reply.isReplayed()) {
            return Uni.createFrom().item(reply);
        }
        UUID endpointId = endpointIdOf(reply);
        return endpoints.find(endpointId).map(endpoint -> {
            if (endpoint == null) {
                throw notFound(endpointId.toString());
            }
            return (reply.status() == 201 ? created(endpoint) : shown(endpoint)).replayed();
        });
    }

    private UUID endpointIdOf(Reply reply) {
        try {
            return UUID.fromString(json.readTree(reply.body()).path("id").asText());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Register valid(Register body) {
        if (body == null) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, "A JSON body is required");
        }
        try {
            WebhookTargets.parse(body.url());
        } catch (WebhookTargets.Refused refused) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, refused.getMessage());
        }
        List<String> types = body.types();
        if (types != null) {
            if (types.size() > MAX_TYPES || new LinkedHashSet<>(types).size() != types.size()) {
                throw ProblemException.of(ProblemType.INVALID_REQUEST,
                        "types must list distinct event types, at most " + MAX_TYPES);
            }
            for (String type : types) {
                if (type == null || !EventTypes.known(type)) {
                    throw ProblemException.of(ProblemType.INVALID_REQUEST, "types may only name the event types"
                            + " this service emits: " + String.join(", ", EventTypes.known()));
                }
            }
        }
        if (body.description() != null && (body.description().isBlank()
                || body.description().length() > MAX_DESCRIPTION)) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST,
                    "description must be a text of 1 to " + MAX_DESCRIPTION + " characters");
        }
        return body;
    }

    private static WebhookEndpoint existing(WebhookEndpoint found, String id) {
        if (found == null) {
            throw notFound(id);
        }
        return found;
    }

    private ProblemException limitReached() {
        return ProblemException.of(ProblemType.WEBHOOK_ENDPOINT_LIMIT, config.maxEnabledEndpoints()
                + " endpoints are enabled, as many as events.webhooks.max-enabled-endpoints allows: delete one first");
    }

    private static ProblemException notFound(String id) {
        return ProblemException.of(ProblemType.NOT_FOUND, "No webhook endpoint " + id);
    }

    private static UUID endpointId(String id) {
        UUID parsed = Ids.parseOrNull(id);
        if (parsed == null) {
            throw notFound(id);
        }
        return parsed;
    }


    private byte[] bytes(Object value) {
        try {
            return json.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
