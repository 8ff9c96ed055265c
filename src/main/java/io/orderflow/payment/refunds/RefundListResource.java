package io.orderflow.payment.refunds;

import io.orderflow.common.Callers;
import io.orderflow.common.http.PageParams;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.UUID;
import org.jboss.resteasy.reactive.RestQuery;

/** Operators' list of refunds across orders, by status (FAILED: money owed again): {@code {items, next}}. */
@RolesAllowed(Callers.OPERATOR)
@Path("/refunds")
@Produces(MediaType.APPLICATION_JSON)
public class RefundListResource {

    static final int MAX_PAGE = 100;

    public record Page(List<RefundView> items, String next) {
    }

    private final Refunds refunds;

    public RefundListResource(Refunds refunds) {
        this.refunds = refunds;
    }

    /** Every parameter is taken as text: a value JAX-RS cannot convert would otherwise be answered 404. */
    @GET
    public Uni<Page> list(@RestQuery String status, @RestQuery String limit, @RestQuery String after) {
        int size = PageParams.size(limit, 20, MAX_PAGE);
        RefundView.Status wanted = status == null ? null : status(status);
        UUID from = PageParams.uuidAfter(after);
        return refunds.page(wanted, from, size).map(found -> new Page(found,
                found.size() == size ? found.get(found.size() - 1).id().toString() : null));
    }

    private static RefundView.Status status(String text) {
        for (RefundView.Status s : RefundView.Status.values()) {
            if (s.name().equals(text)) {
                return s;
            }
        }
        throw ProblemException.of(ProblemType.INVALID_REQUEST, "status must be PENDING, SUCCEEDED or FAILED");
    }
}
