package io.orderflow.events;

import io.orderflow.common.Callers;
import io.orderflow.common.Ids;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jboss.resteasy.reactive.RestPath;

/**
 * Every event of one order, in the order's own order, for operators: what a consumer that lost events to retention,
 * or a support engineer, reads to see what happened to it. Rendered from the order's history, so it holds events
 * the feed purged and those it has not given a position yet.
 */
@RolesAllowed(Callers.OPERATOR)
@Path("/orders/{id}/events")
@Produces(MediaType.APPLICATION_JSON)
public class OrderEventsResource {

    private final Feed feed;

    public OrderEventsResource(Feed feed) {
        this.feed = feed;
    }

    @GET
    public Uni<String> events(@RestPath String id) {
        UUID orderId = Ids.parseOrNull(id);
        if (orderId == null) {
            throw ProblemException.of(ProblemType.NOT_FOUND, "No order " + id);
        }
        return feed.ofOrder(orderId).map(events -> {
            if (events.isEmpty()) {
                throw ProblemException.of(ProblemType.NOT_FOUND, "No order " + id);
            }
            return events.stream().map(FeedEvent::json).collect(Collectors.joining(",", "{\"events\":[", "]}"));
        });
    }
}
