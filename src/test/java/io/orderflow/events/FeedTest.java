package io.orderflow.events;

import static io.orderflow.support.OrderMother.*;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.support.Auth;
import io.orderflow.support.Contract;
import io.orderflow.support.FeedEvents;
import io.orderflow.support.Meters;
import io.orderflow.support.NarrowOverrides;
import io.orderflow.support.Sql;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.stream.StreamRange;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.vertx.VertxContextSupport;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The feed, its sequencer, its retention and the relay to the Redis Stream, driven by hand (their schedules are off
 * in {@link NarrowOverrides}), so that what another transaction or replica holds is held exactly when the test says.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(NarrowOverrides.class)
class FeedTest {

    @Inject
    FeedSequencer sequencer;

    @Inject
    StreamRelay relay;

    @Inject
    FeedRetention retention;

    @Inject
    RedisDataSource redis;

    @Inject
    MeterRegistry registry;

    @Test
    void shouldNeverSkipAnEventWhoseTransactionCommittedAfterLaterOnes() throws Exception {
        sequenceAll();
        String start = FeedEvents.drain(null).next();
        String source = createOrder();
        try (Connection held = Sql.connect()) {
            held.setAutoCommit(false);
            long late = sideEvent(held, source, 0);
            List<String> others = IntStream.range(0, 3).mapToObj(i -> createOrder()).toList();
            sequenceAll();
            FeedEvents.Page before = FeedEvents.drain(start);
            assertEquals(Set.of(source), subjects(before.events(), Set.of(source)), "the creation of the first");
            assertEquals(Set.copyOf(others), subjects(before.events(), Set.copyOf(others)));
            held.commit();
            sequenceAll();
            FeedEvents.Page after = FeedEvents.drain(before.next());
            assertEquals(List.of(EventIds.side(late).toString()),
                    after.events().stream().map(e -> e.get("id").asText()).toList(),
                    "the late event, after everything already read, and nothing read before again");
        }
    }

    /**
     * A transaction draws its id at its first write, so one that waited may hold a smaller id than the one it waited
     * for: the feed still puts an order's events in the order's own order.
     */
    @Test
    void shouldKeepAnOrdersOrderWhenTheLaterEventsTransactionHasTheSmallerId() throws Exception {
        sequenceAll();
        String start = FeedEvents.drain(null).next();
        String id = createOrder();
        try (Connection first = Sql.connect(); Connection second = Sql.connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            long smaller = xid(first);
            long earlier = sideEvent(second, id, 5);
            assertTrue(xid(second) > smaller, "the transactions' ids");
            second.commit();
            sequenceAll(); // the earlier event is in; the first transaction is still open
            long later = sideEvent(first, id, 6);
            first.commit();
            sequenceAll();
            List<String> served = FeedEvents.about(id, FeedEvents.drain(start).events().stream()
                    .map(JsonNode::toString).toList()).stream().map(e -> e.get("id").asText()).toList();
            String created = FeedEvents.tree(FeedEvents.of(id).get(0)).get("id").asText();
            assertEquals(List.of(created, EventIds.side(earlier).toString(), EventIds.side(later).toString()),
                    served);
        }
    }

    @Test
    void shouldGiveNoPositionTwiceWithThreeSequencersAtOnce() {
        List<String> orders = IntStream.range(0, 8).mapToObj(i -> createOrder()).toList();
        orders.forEach(id -> post(id, "cancel", Map.of("reason", "none")).then().statusCode(200));
        onVertx(() -> Uni.join().all(sequencer.sequence(), sequencer.sequence(), sequencer.sequence()).andFailFast());
        sequenceAll();
        assertEquals(0, Sql.count("select count(*) from (select order_id, kind, ref from event_feed group by"
                + " order_id, kind, ref having count(*) > 1) twice"));
        assertEquals(Sql.count("select count(*) from event_feed"), Sql.count("select count(distinct position)"
                + " from event_feed"));
        for (String id : orders) {
            assertEquals(2, Sql.count("select count(*) from event_feed where order_id = ?::uuid", id));
        }
    }

    /**
     * A round reads its batch, not the backlog (issue 46: a sequencer that read every row above its horizon each
     * round fell further behind the more it lagged). 2,000 events, each of a transaction of its own, wait; the
     * round's look-up of the first 100 reads a few hundred rows, counted by PostgreSQL's own EXPLAIN ANALYZE.
     */
    @Test
    void shouldReadABatchNotTheBacklogInARound() throws Exception {
        sequenceAll();
        String id = createOrder();
        try (Connection autocommit = Sql.connect()) {
            for (int version = 0; version < 2_000; version++) {
                sideEvent(autocommit, id, version);
            }
        }
        long read;
        try (Connection connection = Sql.connect(); PreparedStatement explain = connection.prepareStatement(
                "explain (analyze, format json) " + FeedSequencer.CANDIDATES.replace(":limit", "101"));
                ResultSet plan = explain.executeQuery()) {
            plan.next();
            read = rowsRead(new ObjectMapper().readTree(plan.getString(1)).get(0).get("Plan"), "order_side_events");
        }
        assertTrue(read <= 400, "rows of order_side_events read for a batch of 100: " + read);
        sequenceAll();
        assertEquals(2_001, Sql.count("select count(*) from event_feed where order_id = ?::uuid", id));
    }

    /** The rows the plan's scans of {@code table} read (returned or filtered out), over all their loops. */
    private static long rowsRead(JsonNode node, String table) {
        long own = table.equals(node.path("Relation Name").asText()) ? (node.path("Actual Rows").asLong()
                + node.path("Rows Removed by Filter").asLong()) * node.path("Actual Loops").asLong(1) : 0;
        long below = 0;
        for (JsonNode child : node.path("Plans")) {
            below += rowsRead(child, table);
        }
        return own + below;
    }

    @Test
    void shouldAppendNothingWhileAnotherReplicaHoldsTheRelaysTurn() {
        relayAll();
        String id = createOrder();
        sequenceAll();
        Sql.update("update event_cursors set leased_by = 'another replica', lease_until = now() + interval '1 minute'"
                + " where name = 'redis-stream'");
        assertEquals(0, (int) onVertx(relay::relay), "another replica's turn");
        assertEquals(List.of(), FeedEvents.about(id, FeedEvents.stream(redis)));
        Sql.update("update event_cursors set lease_until = now() - interval '1 second' where name = 'redis-stream'");
        relayAll();
        assertEquals(List.of("io.orderflow.order.created"), FeedEvents.about(id, FeedEvents.stream(redis)).stream()
                .map(e -> e.get("type").asText()).toList(), "its lease ran out: this replica took the turn");
    }

    /** What a Sentinel failover to a replica that lacked the last writes does: entries Redis acknowledged are gone. */
    @Test
    void shouldAppendAgainWhatTheStreamLost() {
        relayAll();
        String id = createOrder();
        post(id, "cancel", Map.of("reason", "lost")).then().statusCode(200);
        sequenceAll();
        relayAll();
        assertEquals(2, FeedEvents.about(id, FeedEvents.stream(redis)).size());
        double rewinds = Meters.count(registry, "orderflow.events.stream.rewinds");
        var entries = redis.stream(String.class, String.class, String.class);
        var last = entries.xrevrange(FeedEvents.STREAM, StreamRange.of("+", "-"), 2);
        last.forEach(entry -> entries.xdel(FeedEvents.STREAM, entry.id()));
        assertEquals(List.of(), FeedEvents.about(id, FeedEvents.stream(redis)), "lost");
        relayAll();
        assertEquals(List.of("io.orderflow.order.created", "io.orderflow.order.cancel"),
                FeedEvents.about(id, FeedEvents.stream(redis)).stream().map(e -> e.get("type").asText()).toList(),
                "appended again, in order");
        assertEquals(rewinds + 1, Meters.count(registry, "orderflow.events.stream.rewinds"), 0.0);
    }

    @Test
    void shouldAnswer410WithTheOldestValidCursorOnceRetentionPurgedPastACursor() {
        sequenceAll();
        String before = FeedEvents.drain(null).next();
        String old = createOrder();
        sequenceAll();
        String purgedThrough = FeedEvents.drain(before).next();
        String recent = createOrder();
        sequenceAll();
        // eight days pass for everything up to the first order's creation, in feed order as time would
        Sql.update("update event_feed set at = now() - interval '8 days' where position <= ?",
                Long.parseLong(purgedThrough));
        onVertx(retention::purge);
        Auth.operator().filter(Contract.invalidRequest()).queryParam("after", before).get("/events").then()
                .statusCode(410).contentType("application/problem+json")
                .body("type", is("https://orderflow.dev/problems/feed-cursor-expired"))
                .body("oldestCursor", is(purgedThrough));
        List<JsonNode> rest = FeedEvents.drain(purgedThrough).events();
        assertEquals(List.of(), FeedEvents.about(old, rest.stream().map(JsonNode::toString).toList()));
        assertEquals(1, FeedEvents.about(recent, rest.stream().map(JsonNode::toString).toList()).size());
        assertEquals(1, FeedEvents.of(old).size(), "an order's own events outlive the feed's retention");
    }

    @Test
    void shouldAnswerABadCursorOrLimitWith400AndACustomerWith403() {
        for (String limit : List.of("0", "501", "-1", "x", "1e3")) {
            Auth.operator().filter(Contract.invalidRequest()).queryParam("limit", limit).get("/events").then()
                    .statusCode(400)
                    .contentType("application/problem+json")
                    .body("type", Matchers.is("https://orderflow.dev/problems/invalid-request"));
        }
        for (String after : List.of("-1", "abc", "99999999999999999999", "1.5", "999999999999")) {
            Auth.operator().filter(Contract.invalidRequest()).queryParam("after", after).get("/events")
                    .then().statusCode(400).contentType("application/problem+json");
        }
        Auth.customer(newCustomer()).get("/events").then().statusCode(403);
        Auth.customer(newCustomer()).get("/orders/" + createOrder() + "/events").then().statusCode(403);
    }

    /** A side event of {@code orderId} following its version {@code version}, written by {@code tx}; its id. */
    private static long sideEvent(Connection tx, String orderId, long version) throws Exception {
        try (PreparedStatement insert = tx.prepareStatement("insert into order_side_events (order_id, type,"
                + " order_version, at) values (?::uuid, 'io.orderflow.order.created', ?, now()) returning id")) {
            insert.setString(1, orderId);
            insert.setLong(2, version);
            try (ResultSet row = insert.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    private static long xid(Connection tx) throws Exception {
        try (PreparedStatement current = tx.prepareStatement("select cast(pg_current_xact_id() as text)");
                ResultSet row = current.executeQuery()) {
            row.next();
            return Long.parseLong(row.getString(1));
        }
    }

    private void sequenceAll() {
        while (onVertx(sequencer::sequence) > 0) {
            // once more
        }
    }

    private void relayAll() {
        while (onVertx(relay::relay) > 0) {
            // once more
        }
    }

    /** Runs {@code work} as the scheduler would, on a Vert.x context of its own. */
    private static <T> T onVertx(Supplier<Uni<T>> work) {
        try {
            return VertxContextSupport.subscribeAndAwait(work);
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    private static Set<String> subjects(List<JsonNode> events, Set<String> of) {
        Set<String> found = new HashSet<>();
        events.forEach(e -> {
            if (of.contains(e.get("subject").asText())) {
                found.add(e.get("subject").asText());
            }
        });
        return found;
    }
}
