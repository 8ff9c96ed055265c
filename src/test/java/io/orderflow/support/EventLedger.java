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
 * tests' database ({@link ItDatabase}): the outbox rows, and the changes themselves (one created event per order, one
 * per {@code order_transitions} row, whose {@code seq} is the order's version after it).
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

    /** Outbox rows the relays have not published yet. */
    public static long unpublished() {
        return ItDatabase.count("select count(*) from outbox where published_at is null");
    }

    /**
     * The stream's entries (the {@code event} field of each, in stream order), deduplicated on the CloudEvent id as a
     * consumer does: every outbox row there, each copy equal to its row's payload, nothing else; per order, the
     * first copies' versions 0, 1, 2… in stream order; and the order events exactly the changes in the database.
     */
    public static Verdict stream(List<String> entries) {
        Map<String, JsonNode> outbox = outbox();
        Map<String, JsonNode> firsts = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        int redelivered = 0;
        for (String entry : entries) {
            JsonNode event = OutboxEvents.tree(entry);
            String id = event.path("id").asText();
            if (!event.equals(outbox.get(id))) {
                problems.add("in the stream but not so in the outbox: " + entry);
            }
            if (firsts.putIfAbsent(id, event) != null) {
                redelivered++;
            }
        }
        checkAll(outbox.keySet(), firsts.keySet(), "the stream", problems);
        checkPerOrderOrder(firsts.values(), problems);
        checkChanges(firsts.values(), problems);
        return new Verdict(entries.size(), firsts.size(), redelivered, problems);
    }

    /** A feed reader's events, in the order served: each outbox row exactly once, oldest position first. */
    public static Verdict feed(List<JsonNode> served) {
        Map<String, JsonNode> outbox = outbox();
        Set<String> seen = new HashSet<>();
        List<String> problems = new ArrayList<>();
        int twice = 0;
        for (JsonNode event : served) {
            String id = event.path("id").asText();
            if (!event.equals(outbox.get(id))) {
                problems.add("served but not so in the outbox: " + event);
            }
            if (!seen.add(id)) {
                twice++;
                problems.add("served twice: " + id);
            }
        }
        checkAll(outbox.keySet(), seen, "the feed", problems);
        return new Verdict(served.size(), seen.size(), twice, problems);
    }

    private static Map<String, JsonNode> outbox() {
        Map<String, JsonNode> rows = new HashMap<>();
        ItDatabase.query("select cast(id as text), cast(payload as text) from outbox", new Object[0],
                rs -> rows.put(rs.getString(1), OutboxEvents.tree(rs.getString(2))));
        return rows;
    }

    private static void checkAll(Set<String> outbox, Set<String> delivered, String where, List<String> problems) {
        Set<String> lost = new HashSet<>(outbox);
        lost.removeAll(delivered);
        if (!lost.isEmpty()) {
            problems.add(lost.size() + " outbox events never in " + where + ", e.g. " + lost.iterator().next());
        }
    }

    /** The first copy of each of an order's events comes in version order, without a gap, from the creation on. */
    private static void checkPerOrderOrder(Iterable<JsonNode> firsts, List<String> problems) {
        Map<String, Long> last = new HashMap<>();
        for (JsonNode event : firsts) {
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
    private static void checkChanges(Iterable<JsonNode> firsts, List<String> problems) {
        Set<String> changes = new HashSet<>(ItDatabase.strings("select id || ' CREATE 0' from orders union all"
                + " select order_id || ' ' || event || ' ' || seq from order_transitions"));
        Set<String> told = new HashSet<>();
        for (JsonNode event : firsts) {
            JsonNode data = event.path("data");
            String fact = event.path("subject").asText() + " " + data.path("event").asText() + " "
                    + data.path("version").asLong();
            if (event.path("type").asText().startsWith("io.orderflow.order.") && !told.add(fact)) {
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
