package io.orderflow.payment.anomalies;

import io.orderflow.common.Callers;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.http.PageParams;
import io.orderflow.common.http.QueryNumbers;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;

/**
 * Operators' list of payment anomalies ({@code {items, next}}, keyset-paged; {@code resolved=false} is the on-call
 * queue), and their resolution: who dealt with one and what they noted, recorded once.
 */
@RolesAllowed(Callers.OPERATOR)
@Path("/payments/anomalies")
@Produces(MediaType.APPLICATION_JSON)
public class AnomalyResource {

    static final int MAX_PAGE = 100;
    static final int MAX_NOTE = 2000;

    public record Item(long id, UUID orderId, String provider, String eventId, String providerTxnId, String kind,
            String detail, Instant at, Resolution resolution) {

        static Item of(PaymentAnomaly a) {
            return new Item(a.id, a.orderId, a.provider, a.eventId, a.providerTxnId, a.kind, a.detail, a.at,
                    a.resolvedAt == null ? null : new Resolution(a.resolvedBy, a.resolutionNote, a.resolvedAt));
        }
    }

    /** Who resolved an anomaly (a token's subject), what they noted, and when; absent while it waits. */
    public record Resolution(String by, String note, Instant at) {
    }

    public record Page(List<Item> items, String next) {
    }

    /** The body of a resolution: what was done about it. */
    public record Resolve(String note) {
    }

    private final Anomalies anomalies;
    private final Callers callers;
    private final MicrosecondClock time;

    public AnomalyResource(Anomalies anomalies, Callers callers, MicrosecondClock time) {
        this.anomalies = anomalies;
        this.callers = callers;
        this.time = time;
    }

    /** Every parameter is taken as text: a value JAX-RS cannot convert would otherwise be answered 404. */
    @GET
    public Uni<Page> list(@RestQuery String resolved, @RestQuery String limit, @RestQuery String after) {
        int size = PageParams.size(limit, 20, MAX_PAGE);
        long from = PageParams.numberAfter(after);
        return anomalies.page(resolved(resolved), from, size).map(found -> new Page(
                found.stream().map(Item::of).toList(),
                found.size() == size ? String.valueOf(found.get(found.size() - 1).id) : null));
    }

    /** Idempotent: a repeat, whoever sends it, answers the first resolution unchanged. */
    @POST
    @Path("{id}/resolve")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Item> resolve(@RestPath String id, Resolve body) {
        long anomalyId = QueryNumbers.parse(id, 19);
        if (anomalyId < 0) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, "An anomaly's id is a number");
        }
        if (body == null || body.note() == null || body.note().isBlank() || body.note().length() > MAX_NOTE) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST,
                    "note must be a text of 1 to " + MAX_NOTE + " characters");
        }
        return anomalies.resolve(anomalyId, callers.current().name(), body.note(), time.now()).map(found -> {
            if (found == null) {
                throw ProblemException.of(ProblemType.NOT_FOUND, "No payment anomaly " + id);
            }
            return Item.of(found);
        });
    }

    private static Boolean resolved(String text) {
        if (text == null) {
            return null;
        }
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ProblemException.of(ProblemType.INVALID_REQUEST, "resolved must be true or false");
        };
    }
}
