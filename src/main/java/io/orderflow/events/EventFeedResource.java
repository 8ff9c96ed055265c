package io.orderflow.events;

import io.orderflow.common.Callers;
import io.orderflow.common.http.QueryNumbers;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.stream.Collectors;
import org.jboss.resteasy.reactive.RestQuery;

/**
 * The HTTP feed of order events, for operators: {@code {"events": [CloudEvent...], "next": cursor}}, oldest first.
 * The cursor is the feed position the relay gave the last event served; positions become visible in their own
 * order ({@link Outbox#POSITION_LOCK}), so following {@code next} never skips an event and never serves one twice,
 * whenever the transaction that wrote it committed. An empty page's {@code next} is the cursor to poll with.
 */
@RolesAllowed(Callers.OPERATOR)
@Path("/events")
@Produces(MediaType.APPLICATION_JSON)
public class EventFeedResource {

    static final int MAX_PAGE = 500;
    static final int DEFAULT_PAGE = 50;

    private final Outbox outbox;
    private final EventMetrics metrics;

    public EventFeedResource(Outbox outbox, EventMetrics metrics) {
        this.outbox = outbox;
        this.metrics = metrics;
    }

    /** Both parameters are taken as text, so a bad one is a 400 problem ({@link QueryNumbers}). */
    @GET
    public Uni<String> page(@RestQuery String after, @RestQuery String limit) {
        int size = limit == null ? DEFAULT_PAGE : (int) QueryNumbers.parse(limit, 3);
        if (size < 1 || size > MAX_PAGE) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, "limit must be between 1 and " + MAX_PAGE);
        }
        long from = after == null ? 0 : QueryNumbers.parse(after, 19);
        if (from < 0) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, "after must be the next value of a previous page");
        }
        return outbox.after(from, size).map(events -> {
            metrics.published(EventMetrics.Way.FEED, events.size());
            return body(events, events.isEmpty() ? from : events.get(events.size() - 1).position());
        });
    }

    /** The page as JSON, each event's stored CloudEvent JSON as it is (the cursor is digits: nothing to escape). */
    private static String body(List<Outbox.Published> events, long next) {
        return events.stream().map(Outbox.Published::payload)
                .collect(Collectors.joining(",", "{\"events\":[", "],\"next\":\"" + next + "\"}"));
    }
}
