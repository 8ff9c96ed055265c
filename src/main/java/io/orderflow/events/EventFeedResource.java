package io.orderflow.events;

import io.orderflow.common.Callers;
import io.orderflow.common.http.QueryNumbers;
import io.orderflow.common.problem.Problem;
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
 * The cursor is the position of the last event served; positions are given in commit order by
 * {@link FeedSequencer}, so following {@code next} never skips an event and never serves one twice. An empty page's
 * {@code next} is the cursor to poll with. A cursor older than retention gets 410 with the oldest valid cursor, never
 * a silent jump over what was purged.
 */
@RolesAllowed(Callers.OPERATOR)
@Path("/events")
@Produces(MediaType.APPLICATION_JSON)
public class EventFeedResource {

    static final int MAX_PAGE = 500;
    static final int DEFAULT_PAGE = 50;

    private final Feed feed;
    private final EventMetrics metrics;

    public EventFeedResource(Feed feed, EventMetrics metrics) {
        this.feed = feed;
        this.metrics = metrics;
    }

    /** Both parameters are taken as text, so a bad one is a 400 problem ({@link QueryNumbers}). */
    @GET
    public Uni<String> page(@RestQuery String after, @RestQuery String limit) {
        int size = limit == null ? DEFAULT_PAGE : (int) QueryNumbers.parse(limit, 3);
        if (size < 1 || size > MAX_PAGE) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, "limit must be between 1 and " + MAX_PAGE);
        }
        Long from = after == null ? null : QueryNumbers.parse(after, 19);
        if (from != null && from < 0) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, "after must be the next value of a previous page");
        }
        return feed.page(from, size).map(page -> {
            Feed.Bounds bounds = page.bounds();
            if (from != null && from < bounds.purgedThrough()) {
                throw new ProblemException(Problem.of(ProblemType.FEED_CURSOR_EXPIRED, "Events after " + from
                        + " up to " + bounds.purgedThrough() + " were purged by retention; continue from the oldest"
                        + " valid cursor and read what you missed from its orders' events")
                        .with("oldestCursor", Long.toString(bounds.purgedThrough())));
            }
            if (from != null && from > bounds.head()) {
                throw ProblemException.of(ProblemType.INVALID_REQUEST, "after is beyond the feed's last position "
                        + bounds.head() + ": it is not a cursor of this feed");
            }
            metrics.published(EventMetrics.Way.FEED, page.events().size());
            long start = from == null ? bounds.purgedThrough() : from;
            return body(page.events(), page.events().isEmpty() ? start
                    : page.events().get(page.events().size() - 1).position());
        });
    }

    /** The page as JSON, each event's rendered CloudEvent as it is (the cursor is digits: nothing to escape). */
    static String body(List<FeedEvent> events, long next) {
        return events.stream().map(FeedEvent::json)
                .collect(Collectors.joining(",", "{\"events\":[", "],\"next\":\"" + next + "\"}"));
    }
}
