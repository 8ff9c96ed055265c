package io.orderflow.support;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Holds what left the service — the Redis Stream's entries, the pages a feed reader collected — against the process
 * tests' database ({@link ItDatabase}): the changes themselves (one created event per order, one per
 * {@code order_transitions} row, whose {@code seq} is the order's version after it).
 */
public final class EventLedger {

    /** What a check found: the problems, and how many copies were redelivered (same id seen again). */
    public record Verdict(int copies, int distinct, int redelivered, List<String> problems) {

        public String summary() {
            return copies + " copies of " + distinct + " events (" + redelivered + " again), " + problems.size()
                    + " problems";
        }
    }

    private EventLedger() {
    }

    /**
     * Events the stream does not have yet: committed events without a feed position, and feed events the relay has
     * not appended.
     */
    public static long behind() {
        return ItDatabase.count("select (select count(*) from order_transitions t where t.xid is not null and not"
                + " exists (select 1 from event_feed f where f.order_id = t.order_id and f.kind = 't' and f.ref = t.seq))"
                + " + (select count(*) from order_side_events s where not exists (select 1 from event_feed f where"
                + " f.order_id = s.order_id and f.kind = 's' and f.ref = s.id)) + (select position from event_cursors"
                + " where name = 'sequencer') - (select position from event_cursors where name = 'redis-stream')");
    }

    /**
     * A feed reader's events, in the order served: each event once, each order's in version order without a gap,
     * and the order events exactly the changes in the database.
     */
    public static Verdict feed(List<JsonNode> served) {
        Set<String> seen = new HashSet<>();
        List<String> problems = new ArrayList<>();
        int twice = 0;
        for (JsonNode event : served) {
            String id = event.path("id").asText();
            if (!seen.add(id)) {
                twice++;
                problems.add("served twice: " + id);
            }
        }
        checkPerOrderOrder(served, problems);
        checkChanges(served, problems);
        return new Verdict(served.size(), seen.size(), twice, problems);
    }

    /**
     * The stream's entries (the {@code event} field of each, in stream order), deduplicated on the CloudEvent id as a
     * consumer does: every event of {@code feed} there, each copy equal to the feed's, nothing else; per order, the
     * first copies in version order without a gap.
     */
    public static Verdict stream(List<String> entries, List<JsonNode> feed) {
        Map<String, JsonNode> expected = new HashMap<>();
        feed.forEach(event -> expected.put(event.path("id").asText(), event));
        Map<String, JsonNode> firsts = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        int redelivered = 0;
        for (String entry : entries) {
            JsonNode event = FeedEvents.tree(entry);
            String id = event.path("id").asText();
            if (!event.equals(expected.get(id))) {
                problems.add("in the stream but not so in the feed: " + entry);
            }
            if (firsts.putIfAbsent(id, event) != null) {
                redelivered++;
            }
        }
        Set<String> lost = new HashSet<>(expected.keySet());
        lost.removeAll(firsts.keySet());
        if (!lost.isEmpty()) {
            problems.add(lost.size() + " feed events never in the stream, e.g. " + lost.iterator().next());
        }
        checkPerOrderOrder(firsts.values(), problems);
        return new Verdict(entries.size(), firsts.size(), redelivered, problems);
    }

    /** The first copy of each of an order's events comes in version order, without a gap, from the creation on. */
    private static void checkPerOrderOrder(Iterable<JsonNode> firsts, List<String> problems) {
        Map<String, Long> last = new HashMap<>();
        Set<String> seen = new HashSet<>();
        for (JsonNode event : firsts) {
            if (!seen.add(event.path("id").asText()) || !event.path("type").asText().startsWith("io.orderflow.order.")) {
                continue;
            }
            String order = event.path("subject").asText();
            long version = event.path("data").path("version").asLong();
            long before = last.getOrDefault(order, -1L);
            if (version != before + 1) {
                problems.add("order " + order + ": version " + version + " after " + before);
            }
            last.put(order, Math.max(before, version));
        }
    }

    /** The order events, deduplicated, are exactly one created event per order and one per history row. */
    private static void checkChanges(Iterable<JsonNode> events, List<String> problems) {
        Set<String> changes = new HashSet<>(ItDatabase.strings("select id || ' CREATE 0' from orders union all"
                + " select order_id || ' ' || event || ' ' || seq from order_transitions"));
        Set<String> told = new HashSet<>();
        Set<String> ids = new HashSet<>();
        for (JsonNode event : events) {
            JsonNode data = event.path("data");
            String fact = event.path("subject").asText() + " " + data.path("event").asText() + " "
                    + data.path("version").asLong();
            if (ids.add(event.path("id").asText()) && event.path("type").asText().startsWith("io.orderflow.order.")
                    && !told.add(fact)) {
                problems.add("two events for one change: " + fact);
            }
        }
        Set<String> missing = new HashSet<>(changes);
        missing.removeAll(told);
        Set<String> extra = new HashSet<>(told);
        extra.removeAll(changes);
        if (!missing.isEmpty() || !extra.isEmpty()) {
            problems.add(missing.size() + " changes without an event (e.g. " + missing.stream().findFirst()
                    .orElse("-") + "), " + extra.size() + " events without a change (e.g. "
                    + extra.stream().findFirst().orElse("-") + ")");
        }
    }
}
