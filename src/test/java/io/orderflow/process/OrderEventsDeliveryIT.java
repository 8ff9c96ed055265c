package io.orderflow.process;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.orderflow.support.EventLedger;
import io.orderflow.support.FreePorts;
import io.orderflow.support.ItDatabase;
import io.orderflow.support.LifecycleStorm;
import io.orderflow.support.LogScan;
import io.orderflow.support.FeedEvents;
import io.orderflow.support.RedisDb;
import io.orderflow.support.ServiceClient;
import io.orderflow.support.ServiceClient.Answer;
import io.orderflow.support.ServiceProcess;
import io.orderflow.support.TestServices;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.function.Executable;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * The order events' way out, with real service processes: the packaged jar killed with SIGKILL in the middle of a
 * relay round under a keyed storm of lifecycles and restarted, then three replicas sequencing and relaying at once
 * under concurrent writers while a reader follows the feed. Afterwards the feed, read to its end, served every event
 * once, each order's in version order, and exactly the changes in the database; and the Redis Stream, deduplicated on
 * the CloudEvent id as a consumer does, holds every event of the feed ({@link EventLedger}).
 *
 * <p>Both kills are made to land inside a round of the relay to the stream. The first once its appends are in Redis
 * and it waits to move its cursor (the test holds the cursor's row): the restarted relay appends them again. The
 * second while its appends wait on a frozen Redis (the service reaches Redis through a TCP proxy, whose connections
 * are dropped with the kill): nothing of the round reached the stream, and its cursor did not move. The database and
 * Redis database are created anew first, so the feed and the stream hold this test's events only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OrderEventsDeliveryIT {

    /** A killed holder's in-flight marker blocks its key in Redis this long (default 30 s): shorter here. */
    private static final Map<String, String> ENV = Map.of("IDEMPOTENCY_REDIS_PENDING_TTL", "10s");
    private static final int WORKERS = 8;
    /** Acknowledged requests (five per lifecycle) between one kill and the next, and in the replicas' run. */
    private static final int ACKS_PER_PHASE = 250;
    private static final Pattern STREAM_PUBLISHED = Pattern.compile(
            "(?m)^orderflow_events_published_total\\{[^}]*way=\"redis-stream\"[^}]*} (\\S+)$");
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final List<ServiceProcess> started = new ArrayList<>();
    private final List<LifecycleStorm> storms = new ArrayList<>();
    private NioReactor reactor;
    private TcpCrusher redisProxy;

    @BeforeAll
    void freshDatabaseAndRedisBehindAProxy() throws IOException {
        ServiceProcess.killAllStarted(); // an instance an earlier class left running would write into the new database
        ItDatabase.recreate();
        RedisDb.flush();
        TestServices.Redis redis = TestServices.get().redis();
        reactor = new NioReactor();
        redisProxy = TcpCrusherBuilder.builder().withReactor(reactor).withBindAddress("127.0.0.1", FreePorts.take())
                .withConnectAddress(redis.host(), redis.port()).buildAndOpen();
    }

    /** A test that failed half-way leaves neither Redis frozen nor its storm writing under the next test's feet. */
    @AfterEach
    void thawRedisAndStopTheStorms() {
        storms.forEach(LifecycleStorm::stop);
        if (redisProxy.isFrozen()) {
            redisProxy.unfreeze();
        }
    }

    @AfterAll
    void stopTheReplicasAndCheckTheirLogs() {
        storms.forEach(LifecycleStorm::stop); // already stopped unless a test failed half-way
        List<ServiceProcess> running = running();
        List<Long> marks = running.stream().map(ServiceProcess::logLineCount).toList();
        running.forEach(ServiceProcess::sigterm);
        running.forEach(r -> r.awaitExit(Duration.ofSeconds(90)));
        redisProxy.close();
        reactor.close();
        List<Executable> checks = new ArrayList<>();
        for (int i = 0; i < running.size(); i++) {
            ServiceProcess r = running.get(i);
            long mark = marks.get(i);
            checks.add(() -> assertEquals(List.of(), LogScan.problemsOfStoppedInstance(r.logText(), mark),
                    "errors in " + r.log()));
        }
        assertAll(checks);
    }

    @Test
    @Order(1)
    void shouldPublishEveryEventAtLeastOnceInOrderWhenTheServiceIsKilledInTheMiddleOfARelayRound()
            throws SQLException {
        Map<String, String> env = new HashMap<>(ENV);
        env.put("QUARKUS_REDIS_HOSTS", new TestServices.Redis("127.0.0.1", redisProxy.getBindAddress().getPort())
                .url(RedisDb.DB));
        ServiceProcess service = start("OrderEventsDeliveryIT-1", env).awaitReady();
        LifecycleStorm storm = storm(List.of(new ServiceClient(service)));

        awaitTrue(() -> storm.acknowledged() >= ACKS_PER_PHASE, Duration.ofSeconds(180), "the storm runs");
        redisProxy.freeze();
        String frozenAt = ItDatabase.strings("select cast(clock_timestamp() as text)").get(0);
        awaitTrue(() -> relayTookItsTurnSince(frozenAt), Duration.ofSeconds(30), "a relay round starts");
        try (Connection lock = ItDatabase.connect(); Statement s = lock.createStatement()) {
            lock.setAutoCommit(false);
            s.execute("select * from event_cursors where name = 'redis-stream' for update");
            redisProxy.unfreeze(); // the round's appends reach Redis; its cursor's move waits for the test's lock
            awaitTrue(() -> ItDatabase.count("select count(*) from pg_stat_activity where datname = ? and"
                    + " wait_event_type = 'Lock' and query like 'update event_cursors set position%'",
                    ItDatabase.NAME) > 0, Duration.ofSeconds(60), "the relay has appended and waits to move its cursor");
            service.kill();
            // PostgreSQL notices a dead client only when it next writes to it: the killed instance's cursor move,
            // granted the lock, would still commit. End its session first, as a restart of its node would.
            assertEquals(1, ItDatabase.count("select count(*) filter (where ended) from (select"
                    + " pg_terminate_backend(pid) as ended from pg_stat_activity where datname = ? and wait_event_type"
                    + " = 'Lock' and query like 'update event_cursors set position%') s", ItDatabase.NAME),
                    "the killed relay's session");
            lock.rollback();
        }
        assertKilledLogClean(service, frozenRedis());
        service = restart(service, "OrderEventsDeliveryIT-2").awaitReady();

        awaitTrue(() -> storm.acknowledged() >= 2 * ACKS_PER_PHASE, Duration.ofSeconds(180), "the storm goes on");
        redisProxy.freeze();
        String frozenAgainAt = ItDatabase.strings("select cast(clock_timestamp() as text)").get(0);
        boolean waiting = awaitUpTo(() -> relayTookItsTurnSince(frozenAgainAt), Duration.ofSeconds(3));
        service.kill();
        redisProxy.closeAllPairs(); // what the dead instance sent into the frozen proxy never reaches Redis
        redisProxy.unfreeze();
        assertKilledLogClean(service, frozenRedis());
        restart(service, "OrderEventsDeliveryIT-3").awaitReady();

        awaitTrue(() -> storm.acknowledged() >= 3 * ACKS_PER_PHASE, Duration.ofSeconds(180), "the storm goes on");
        storm.stop();
        awaitTrue(() -> EventLedger.behind() == 0, Duration.ofSeconds(60), "the stream has every event");
        List<JsonNode> feed = readFeed(List.of(new ServiceClient(running().get(0))), new AtomicBoolean(true));
        EventLedger.Verdict stream = EventLedger.stream(streamEvents(), feed);
        System.out.println("kill -9 twice under " + storm.lifecycles() + " lifecycles (" + storm.acknowledged()
                + " requests acknowledged); the relay was " + (waiting ? "" : "not ") + "seen waiting on the frozen"
                + " Redis; stream: " + stream.summary());
        assertAll(
                () -> assertEquals(List.of(), storm.unexpected(), "every request answered as expected"),
                () -> assertEquals(List.of(), sample(stream.problems()), stream.problems().size() + " problems"),
                () -> assertTrue(stream.redelivered() > 0,
                        "the round appended before the first kill was sent again after the restart"));
    }

    @Test
    @Order(2)
    void shouldLoseOrReorderNoEventWhenThreeReplicasRelayAtOnceAndTheFeedServesEachOnce() {
        for (int n = running().size() + 1; n <= 3; n++) {
            start("OrderEventsDeliveryIT-replica-" + n, ENV);
        }
        List<ServiceProcess> replicas = running();
        replicas.forEach(ServiceProcess::awaitReady);
        List<ServiceClient> clients = replicas.stream().map(ServiceClient::new).toList();
        List<Double> publishedBefore = replicas.stream().map(OrderEventsDeliveryIT::publishedToStream).toList();

        AtomicBoolean drained = new AtomicBoolean();
        CompletableFuture<List<JsonNode>> reader = CompletableFuture.supplyAsync(() -> readFeed(clients, drained));
        LifecycleStorm storm = storm(clients);
        awaitTrue(() -> storm.acknowledged() >= 2 * ACKS_PER_PHASE, Duration.ofSeconds(180), "the storm runs");
        storm.stop();
        awaitTrue(() -> EventLedger.behind() == 0, Duration.ofSeconds(60), "the stream has every event");
        drained.set(true);
        List<JsonNode> served = reader.join();

        EventLedger.Verdict feed = EventLedger.feed(served);
        EventLedger.Verdict stream = EventLedger.stream(streamEvents(), served);
        List<Double> relayed = new ArrayList<>();
        for (int i = 0; i < replicas.size(); i++) {
            relayed.add(publishedToStream(replicas.get(i)) - publishedBefore.get(i));
        }
        System.out.println("three replicas under " + storm.lifecycles() + " lifecycles: stream " + stream.summary()
                + "; feed " + feed.summary() + "; appended per replica " + relayed);
        assertAll(
                () -> assertEquals(List.of(), storm.unexpected(), "every request answered as expected"),
                () -> assertEquals(List.of(), sample(stream.problems()), stream.problems().size() + " problems"),
                () -> assertEquals(List.of(), sample(feed.problems()), feed.problems().size() + " problems"));
    }

    // ----------------------------------------------------------------------------------------------------------

    private ServiceProcess start(String name, Map<String, String> env) {
        ServiceProcess instance = ServiceProcess.start(name, env);
        started.add(instance);
        return instance;
    }

    private ServiceProcess restart(ServiceProcess killed, String name) {
        ServiceProcess instance = killed.restart(name);
        started.add(instance);
        return instance;
    }

    private List<ServiceProcess> running() {
        return started.stream().filter(ServiceProcess::isAlive).toList();
    }

    private LifecycleStorm storm(List<ServiceClient> clients) {
        LifecycleStorm storm = new LifecycleStorm(clients).start(WORKERS);
        storms.add(storm);
        return storm;
    }

    /**
     * Follows the feed from its start, a page from each replica in turn, until a page fetched after every event got
     * its position comes back empty: every position is then committed and served.
     */
    private static List<JsonNode> readFeed(List<ServiceClient> replicas, AtomicBoolean drained) {
        List<JsonNode> served = new ArrayList<>();
        String after = null;
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        for (int page = 0; System.nanoTime() < deadline; page++) {
            boolean last = drained.get();
            Answer answer = replicas.get(page % replicas.size()).events(after, 200);
            if (answer.status() != 200) {
                throw new IllegalStateException("GET /events answered " + answer);
            }
            JsonNode body = answer.json();
            body.get("events").forEach(served::add);
            after = body.get("next").asText();
            if (body.get("events").isEmpty()) {
                if (last) {
                    return served;
                }
                ServiceProcess.sleep(100);
            }
        }
        throw new IllegalStateException("the feed was not read to its end within 5 minutes");
    }

    /** Whether a relay round took the stream's turn after {@code since} (a time PostgreSQL gave). */
    private static boolean relayTookItsTurnSince(String since) {
        return ItDatabase.count("select count(*) from event_cursors where name = 'redis-stream' and updated_at >"
                + " cast(? as timestamptz)", since) > 0;
    }

    private static List<String> streamEvents() {
        return RedisDb.streamEntries(FeedEvents.STREAM).stream().map(fields -> fields.get("event")).toList();
    }

    /**
     * The instance's {@code orderflow_events_published_total{way="redis-stream"}}, read from its management port.
     * Polled, bounded: the series appears with the instance's first relay round, which may come after readiness.
     */
    private static double publishedToStream(ServiceProcess instance) {
        HttpRequest scrape = HttpRequest.newBuilder(instance.managementUri("/q/metrics"))
                .timeout(Duration.ofSeconds(10)).build();
        String seen = "";
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> answer = HTTP.send(scrape, HttpResponse.BodyHandlers.ofString());
                Matcher m = STREAM_PUBLISHED.matcher(answer.body());
                if (answer.statusCode() == 200 && m.find()) {
                    return Double.parseDouble(m.group(1));
                }
                seen = answer.statusCode() + " " + answer.body().substring(0, Math.min(300, answer.body().length()));
            } catch (IOException e) {
                seen = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            ServiceProcess.sleep(500);
        }
        throw new IllegalStateException("no stream counter in " + instance + "'s metrics: " + seen);
    }

    /** Killed: every line it wrote was written before the kill. */
    private static void assertKilledLogClean(ServiceProcess killed, Pattern... tolerated) {
        String log = killed.logText();
        System.out.println(killed + " log: " + LogScan.toleratedSummary(log));
        assertEquals(List.of(), LogScan.problems(log, tolerated), "errors in " + killed.log());
    }

    /** What an instance whose Redis the test froze may log besides: its relay round failing on Redis's timeout. */
    private static Pattern[] frozenRedis() {
        List<Pattern> tolerated = new ArrayList<>(List.of(LogScan.TOLERATED));
        tolerated.add(LogScan.RELAY_ROUND_FAILED_ON_REDIS);
        return tolerated.toArray(Pattern[]::new);
    }

    private static List<String> sample(List<String> problems) {
        return problems.subList(0, Math.min(20, problems.size()));
    }

    private static boolean awaitUpTo(BooleanSupplier condition, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            ServiceProcess.sleep(50);
        }
        return condition.getAsBoolean();
    }

    private static void awaitTrue(BooleanSupplier condition, Duration bound, String what) {
        assertTrue(awaitUpTo(condition, bound), what + " (not within " + bound + ")");
    }
}
