package io.orderflow.payment;

import io.orderflow.common.http.QueryNumbers;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jboss.resteasy.reactive.RestQuery;

/** Operators' list of payment anomalies: {@code {items, next}}, keyset-paged. */
@RolesAllowed(io.orderflow.common.Callers.OPERATOR)
@Path("/payments/anomalies")
@Produces(MediaType.APPLICATION_JSON)
public class AnomalyResource {

    static final int MAX_PAGE = 100;

    public record Item(long id, UUID orderId, String provider, String eventId, String providerTxnId, String kind,
            String detail, Instant at) {
    }

    public record Page(List<Item> items, String next) {
    }

    private final Anomalies anomalies;

    public AnomalyResource(Anomalies anomalies) {
        this.anomalies = anomalies;
    }

    /** Both parameters are taken as text: a value JAX-RS cannot convert would otherwise be answered 404. */
    @GET
    public Uni<Page> list(@RestQuery String limit, @RestQuery String after) {
        int size = limit == null ? 20 : (int) QueryNumbers.parse(limit, 3);
        if (size < 1 || size > MAX_PAGE) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, "limit must be between 1 and " + MAX_PAGE);
        }
        long from = after == null ? 0 : QueryNumbers.parse(after, 19);
        if (from < 0) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, "after must be the next value of a previous page");
        }
        return anomalies.page(from, size).map(found -> new Page(
                found.stream().map(a -> new Item(a.id, a.orderId, a.provider, a.eventId, a.providerTxnId, a.kind,
                        a.detail, a.at)).toList(),
                found.size() == size ? String.valueOf(found.get(found.size() - 1).id) : null));
    }
}
