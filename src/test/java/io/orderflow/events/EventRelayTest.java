package io.orderflow.events;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.orderflow.support.Auth;
import io.orderflow.support.Contract;
import io.orderflow.support.NarrowOverrides;
import io.orderflow.support.OutboxEvents;
import io.orderflow.support.Sql;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.vertx.VertxContextSupport;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The relay and the feed, driven by hand (the scheduled relay is off in {@link NarrowOverrides}), so that what another replica
 * or a late transaction holds is held exactly when the test says.
 */
@QuarkusTest
@Tag("profile")
@TestProfile(NarrowOverrides.class)
class EventRelayTest {

    @Inject
    EventRelay relay;

    @Inject
    OutboxPurge purge;

    @Inject
    RedisDataSource redis;

    @Test
    void shouldPublishNothingWhileAnotherRelayHoldsItsTurn() throws Exception {
        relayAll();
        String id = createOrder();
        post(id, "cancel", Map.of("reason", "none")).then().statusCode(200);
        try (Connection other = Sql.connect()) {
            other.setAutoCommit(false);
            try (PreparedStatement turn = other.prepareStatement("select pg_advisory_xact_lock(?)")) {
                turn.setLong(1, Outbox.RELAY_LOCK);
                turn.executeQuery();
            }
            assertEquals(0, (int) onVertx(relay::relay), "another replica's round is running");
            assertEquals(List.of(), OutboxEvents.about(id, OutboxEvents.stream(redis)));
            other.rollback();
        }
        assertEquals(2, (int) onVertx(relay::relay), "both events in one round");
        assertEquals(List.of("io.orderflow.order.created", "io.orderflow.order.cancel"),
                OutboxEvents.about(id, OutboxEvents.stream(redis)).stream().map(e -> e.get("type").asText()).toList());
    }

    @Test
    void shouldLeaveNoStatementWaitingWhenARoundTimesOut() throws Exception {
        relayAll();
        String id = createOrder();
        try (Connection other = Sql.connect()) {
            other.setAutoCommit(false);
            try (PreparedStatement feed = other.prepareStatement("select pg_advisory_xact_lock(?)")) {
                feed.setLong(1, Outbox.POSITION_LOCK);
                feed.executeQuery();
            }
            assertThrows(AssertionError.class, () -> onVertx(relay::relay), "the round waits past its timeout");
            assertEquals(0, Sql.count("select count(*) from pg_stat_activity where datname = current_database()"
                    + " and wait_event_type = 'Lock' and wait_event = 'advisory'"),
                    "PostgreSQL cancelled the round's statement and rolled it back");
            other.rollback();
        }
        assertEquals(1, (int) onVertx(relay::relay), "the creation goes out again in the next round");
        List<JsonNode> events = OutboxEvents.about(id, OutboxEvents.stream(redis));
        assertEquals(List.of("io.orderflow.order.created", "io.orderflow.order.created"),
                events.stream().map(e -> e.get("type").asText()).toList(), "appended by both rounds");
        assertEquals(1, events.stream().map(e -> e.get("id").asText()).distinct().count(), "with one CloudEvent id");
    }

    @Test
    void shouldKeepEveryOrdersEventsInOrderWithThreeRelaysAtOnce() {
        List<String> orders = IntStream.range(0, 8).mapToObj(i -> createOrder()).toList();
        orders.forEach(id -> {
            post(id, "cancel", Map.of("reason", "none")).then().statusCode(200);
        });
        onVertx(() -> Uni.join().all(relay.relay(), relay.relay(), relay.relay()).andFailFast());
        relayAll();
        List<String> stream = OutboxEvents.stream(redis);
        for (String id : orders) {
            List<JsonNode> events = OutboxEvents.about(id, stream);
            assertEquals(List.of(0, 1), events.stream().map(e -> e.get("data").get("version").asInt()).toList(),
                    "each event once, in version order");
        }
    }

    @Test
    void shouldNeverSkipAnEventWhoseTransactionCommittedAfterLaterOnes() throws Exception {
        relayAll();
        String start = OutboxEvents.drain(null).next();
        String source = createOrder();
        relayAll();
        String late = UUID.randomUUID().toString();
        try (Connection held = Sql.connect()) {
            held.setAutoCommit(false);
            try (PreparedStatement insert = held.prepareStatement("insert into outbox (id, aggregatetype,"
                    + " aggregateid, type, payload, created_at) select ?::uuid, aggregatetype, aggregateid, type,"
                    + " jsonb_set(payload, '{id}', to_jsonb(?)), now() from outbox where aggregateid = ?")) {
                insert.setString(1, late);
                insert.setString(2, late);
                insert.setString(3, source);
                insert.executeUpdate();
            }
            List<String> others = IntStream.range(0, 3).mapToObj(i -> createOrder()).toList();
            relayAll();
            OutboxEvents.Page before = OutboxEvents.drain(start);
            assertEquals(Set.copyOf(others), subjects(before.events(), Set.copyOf(others)));
            held.commit();
            relayAll();
            OutboxEvents.Page after = OutboxEvents.drain(before.next());
            assertEquals(List.of(late), after.events().stream().map(e -> e.get("id").asText()).toList(),
                    "the late event, after everything already read, and nothing read before again");
        }
    }

    @Test
    void shouldPurgePublishedEventsPastRetentionOnly() {
        String id = createOrder();
        relayAll();
        String recent = createOrder();
        relayAll();
        String unpublished = createOrder();
        // eight days pass for everything published up to the first order's event, in feed order as time would
        Sql.update("update outbox set published_at = now() - interval '8 days' where position <= (select position"
                + " from outbox where aggregateid = ?)", id);
        Sql.update("update outbox set created_at = now() - interval '8 days' where aggregateid = ?", unpublished);
        onVertx(purge::purge);
        assertEquals(0, OutboxEvents.of(id).size());
        assertEquals(1, OutboxEvents.of(recent).size(), "published within the retention");
        assertEquals(1, OutboxEvents.of(unpublished).size(), "never purged before it is published");
    }

    @Test
    void shouldAnswerABadCursorOrLimitWith400AndACustomerWith403() {
        for (String limit : List.of("0", "501", "-1", "x", "1e3")) {
            Auth.operator().filter(Contract.invalidRequest()).queryParam("limit", limit).get("/events").then()
                    .statusCode(400)
                    .contentType("application/problem+json")
                    .body("type", Matchers.is("https://orderflow.dev/problems/invalid-request"));
        }
        for (String after : List.of("-1", "abc", "99999999999999999999", "1.5")) {
            Auth.operator().filter(Contract.invalidRequest()).queryParam("after", after).get("/events")
                    .then().statusCode(400).contentType("application/problem+json");
        }
        Auth.customer(newCustomer()).get("/events").then().statusCode(403);
    }

    /** Runs the relay until a run publishes nothing. */
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
