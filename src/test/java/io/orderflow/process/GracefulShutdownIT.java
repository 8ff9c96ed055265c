package io.orderflow.process;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.ItDatabase;
import io.orderflow.support.LogScan;
import io.orderflow.support.ServiceClient.Answer;
import io.orderflow.support.ServiceClient;
import io.orderflow.support.ServiceProcess;
import io.orderflow.support.TransitionStream;
import java.net.ConnectException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * One instance of the packaged service under a steady stream of order lifecycles is stopped mid-stream — once with
 * SIGTERM, once with SIGKILL — while its successor boots next to it, as in a rolling update. Afterwards every
 * acknowledged write is in the database, every request that got no answer or a 5xx is retried against the
 * successor with the same key, event id and body and has exactly one effect, and the invariants hold.
 *
 * <p>To make "in flight" deterministic, one SHIP request is held inside the database: the test locks the order's
 * row, so the service's compare-and-set waits on the lock, and releases it only when the stop is under way.
 *
 * <p>The instances run with {@code QUARKUS_SHUTDOWN_DELAY=3s}: on SIGTERM readiness reports DOWN first (the
 * build enables {@code quarkus.shutdown.delay-enabled}), the load balancer — here the stream's {@code inRotation}
 * flag, driven by a readiness probe — stops sending, and only then does Quarkus drain in-flight requests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GracefulShutdownIT {

    private static final Map<String, String> ENV = Map.of(
            "QUARKUS_SHUTDOWN_DELAY", "3s",
            // a crashed holder's in-flight marker blocks its key in Redis this long (default 30 s): shorter here
            "IDEMPOTENCY_REDIS_PENDING_TTL", "10s",
            // the held SHIP waits on the test's row lock for longer than the service's statement timeout allows
            "ORDERS_DATABASE_STATEMENT_TIMEOUT", "60s");
    /** As Kubernetes runs it: a preStop sleep instead of Quarkus's shutdown delay. */
    private static final Map<String, String> NO_DELAY = Map.of(
            "IDEMPOTENCY_REDIS_PENDING_TTL", "10s",
            "ORDERS_DATABASE_STATEMENT_TIMEOUT", "60s");
    private static final int WORKERS = 6;
    private static final int ACKS_BEFORE_STOP = 60;

    private final List<ServiceProcess> started = new ArrayList<>();
    /** The instance the next test stops (it may still be booting: each test waits for it). */
    private ServiceProcess current;

    @BeforeAll
    void startOneInstance() {
        ItDatabase.createIfMissing();
        current = next();
    }

    @AfterAll
    void stopWhatStillRuns() {
        long mark = current == null ? 0 : current.logLineCount();
        started.stream().filter(ServiceProcess::isAlive).forEach(ServiceProcess::sigterm);
        started.forEach(p -> p.awaitExit(Duration.ofSeconds(90)));
        if (current != null) {
            assertLogClean(current, mark);
        }
    }

    /** The instance under test with a steady stream running through it, and its successor booting alongside. */
    private record Streaming(ServiceProcess victim, ServiceProcess successor, ServiceClient client, Held held,
            AtomicBoolean inRotation, TransitionStream stream) {
    }

    private Streaming startStreaming() throws Exception {
        ServiceProcess victim = current.awaitReady();
        ServiceProcess successor = next(); // boots while the victim works, and replaces it whatever happens here
        current = successor;
        ServiceClient client = new ServiceClient(victim);
        Held held = paidOrder(client);
        AtomicBoolean inRotation = new AtomicBoolean(true);
        TransitionStream stream = new TransitionStream(client, inRotation::get, 1000).start(WORKERS);
        awaitTrue(() -> stream.acknowledged() >= ACKS_BEFORE_STOP, Duration.ofSeconds(180), "the stream runs");
        return new Streaming(victim, successor, client, held, inRotation, stream);
    }

    @Test
    void shouldGoUnreadyThenFinishInFlightRequestsAndLoseNoAcknowledgedWriteOnSigterm() throws Exception {
        Streaming run = startStreaming();
        ServiceProcess victim = run.victim();
        ServiceProcess successor = run.successor();
        ServiceClient client = run.client();
        Held held = run.held();
        AtomicBoolean inRotation = run.inRotation();
        TransitionStream stream = run.stream();

        Probe probe = new Probe(victim, inRotation).start();
        awaitTrue(() -> probe.saw(200), Duration.ofSeconds(60), "the probe sees the instance ready");
        CompletableFuture<Answer> inFlight;
        long beforeStop;
        try (Connection lock = ItDatabase.connect()) {
            inFlight = shipWhileLocked(lock, client, held);
            beforeStop = victim.logLineCount();
            victim.sigterm();
            awaitTrue(() -> probe.saw(503), Duration.ofSeconds(60), "readiness reports DOWN after SIGTERM");
            awaitTrue(() -> victim.logText().contains("Waiting for HTTP requests to complete"),
                    Duration.ofSeconds(60), "the drain waits for the held request");
            assertFalse(inFlight.isDone(), "the SHIP is still in flight while the instance drains");
            lock.rollback(); // release the row: the held SHIP completes during the drain
        }
        Answer shipped = inFlight.get(90, TimeUnit.SECONDS);
        int exit = victim.awaitExit(Duration.ofSeconds(90));
        // the probe polls every 100 ms: let it see the closed port before it is stopped
        awaitTrue(() -> probe.saw(ServiceProcess.REFUSED), Duration.ofSeconds(10), "the probe sees the port closed");
        stream.stop();
        probe.stop();
        System.out.println("SIGTERM: exit " + exit + ", readiness seen " + probe.sequence() + ", acknowledged "
                + stream.acknowledged() + ", pending " + stream.pending().size());

        assertEquals(200, shipped.status(), "the in-flight SHIP was answered: " + shipped);
        assertFalse(shipped.replayed(), "and it was executed, not replayed");
        assertTrue(probe.sawBefore(503, ServiceProcess.REFUSED),
                "readiness went DOWN before connections were refused: " + probe.sequence());
        assertTrue(victim.refusesConnections(), "the stopped instance refuses new connections");
        assertTrue(victim.logText().contains("stopped in"), "Quarkus stopped gracefully");
        assertLogClean(victim, beforeStop);

        successor.awaitReady();
        assertEveryWriteOnceAfterRetrying(stream, held, "SHIP:" + held.shipKey);
    }

    /**
     * No load balancer here: clients keep sending to the instance through SIGTERM until its port closes. Three
     * runs, with and without a shutdown delay (Kubernetes' preStop sleep instead of Quarkus's delay). A request
     * whose work started is answered; one that gets no answer, or a 503 while the instance drains, changed nothing.
     */
    @Test
    void shouldAnswerEveryRequestWhoseWorkStartedWhileClientsKeepSendingThroughSigterm() throws Exception {
        List<String> cut = new ArrayList<>();
        List<String> disconnected = new ArrayList<>();
        List<TransitionStream> streams = new ArrayList<>();
        // the instance running now was started with ENV; each run stops it and starts the next with the next env
        Map<String, String> victimEnv = ENV;
        for (Map<String, String> env : List.of(NO_DELAY, ENV, ENV)) {
            ServiceProcess victim = current.awaitReady();
            ServiceProcess successor = next(env);
            current = successor;
            TransitionStream stream = new TransitionStream(new ServiceClient(victim), () -> true, 1000)
                    .start(WORKERS * 2);
            awaitTrue(() -> stream.acknowledged() >= ACKS_BEFORE_STOP, Duration.ofSeconds(180), "the stream runs");
            long beforeStop = victim.logLineCount();
            victim.sigterm();
            int exit = victim.awaitExit(Duration.ofSeconds(90));
            stream.stop();
            long unanswered = stream.pending().stream().filter(c -> !c.pendingAnswer.answered()).count();
            long drained = stream.pending().stream().filter(c -> c.pendingAnswer.status() == 503).count();
            System.out.println("SIGTERM under steady traffic (" + (victimEnv == ENV ? "3s delay" : "no delay") + "): exit "
                    + exit + ", acknowledged " + stream.acknowledged() + ", 503 while draining " + drained
                    + ", no answer " + unanswered);
            stream.pending().stream().filter(c -> !c.pendingAnswer.answered() && tookEffect(c))
                    .forEach(c -> cut.add(c.toString()));
            // a refused connection never carried the request; any other failure lost a request that was sent
            stream.pending().stream().filter(c -> !c.pendingAnswer.answered()
                    && !(c.pendingAnswer.failure() instanceof ConnectException))
                    .forEach(c -> disconnected.add(c.pendingAnswer.failure().toString()));
            assertLogClean(victim, beforeStop);
            streams.add(stream);
            victimEnv = env;
        }
        assertEquals(List.of(), cut, "requests that took effect but whose answer was cut off");
        assertEquals(List.of(), disconnected, "requests sent whose connection closed before an answer");
        for (TransitionStream stream : streams) {
            successorRetries(stream);
        }
    }

    /** Whether the stream's pending step is in the database. */
    private static boolean tookEffect(TransitionStream.Chain chain) {
        if (chain.pending == TransitionStream.Step.CREATE) {
            return ItDatabase.count("select count(*) from orders where customer_id = ?", chain.customer) > 0;
        }
        return ItDatabase.count("select count(*) from order_transitions where order_id = ?::uuid and event = ?",
                chain.orderId(), chain.pending.event.name()) > 0;
    }

    private void successorRetries(TransitionStream stream) {
        current.awaitReady();
        assertEveryWriteOnceAfterRetrying(stream, null, null);
    }

    @Test
    void shouldApplyEveryRetriedRequestExactlyOnceAfterKillMinus9() throws Exception {
        Streaming run = startStreaming();
        ServiceProcess victim = run.victim();
        ServiceProcess successor = run.successor();
        ServiceClient client = run.client();
        Held held = run.held();
        AtomicBoolean inRotation = run.inRotation();
        TransitionStream stream = run.stream();

        Answer lost;
        try (Connection lock = ItDatabase.connect()) {
            CompletableFuture<Answer> inFlight = shipWhileLocked(lock, client, held);
            victim.kill();
            inRotation.set(false); // the load balancer notices the dead instance
            lost = inFlight.get(90, TimeUnit.SECONDS);
            lock.rollback(); // the dead instance's statement is still queued behind the lock: it now commits
        }
        stream.stop();
        System.out.println("SIGKILL: acknowledged " + stream.acknowledged() + ", pending " + stream.pending().size());
        assertFalse(lost.answered(), "the held SHIP got no answer: " + lost);
        // the dead instance's statement either still commits once the lock is gone (PostgreSQL finishes it and
        // fails only on sending the reply) or is cancelled (client_connection_check_interval set): wait until
        // PostgreSQL is done with it, then see which
        awaitTrue(() -> ItDatabase.count("select count(*) from pg_stat_activity where datname = ?"
                + " and state = 'active' and query like 'with rule %'", ItDatabase.NAME) == 0,
                Duration.ofSeconds(60), "PostgreSQL is done with the dead instance's statement");
        boolean committed = ItDatabase.count("select count(*) from order_transitions where order_id = ?"
                + " and event = 'SHIP' and request_key = ?", held.uuid(), held.shipKey) == 1;
        assertTrue(victim.refusesConnections(), "the killed instance refuses new connections");
        assertLogClean(victim, Long.MAX_VALUE); // killed: every line it wrote was written before the kill

        ServiceClient retrying = new ServiceClient(successor.awaitReady());
        Answer retried = ServiceClient.untilFinal(() -> retrying.transition(held.id, "ship", held.customer,
                held.shipKey, ServiceClient.SHIP_BODY), 60, Duration.ofSeconds(90));
        System.out.println("SIGKILL: the held SHIP " + (committed ? "committed without its answer" : "was rolled back")
                + "; its retry answered " + retried.status() + (retried.replayed() ? " replayed" : " executed"));
        assertEquals(200, retried.status(), retried.toString());
        assertEquals(committed, retried.replayed(), committed
                ? "the SHIP had committed: its retry replays the stored answer and is not executed again"
                : "the SHIP had not committed: its retry executes it");
        assertEveryWriteOnceAfterRetrying(stream, held, "SHIP:" + held.shipKey);
    }

    // ----------------------------------------------------------------------------------------------------------

    /**
     * Retries every pending request against the current instance, then checks: every acknowledged write is stored
     * (the checker's acknowledgement check), each chain's history is exactly its acknowledged and retried steps,
     * once each and with their keys, and the invariants hold for every order of the stream.
     */
    private void assertEveryWriteOnceAfterRetrying(TransitionStream stream, Held held, String heldLast) {
        stream.retryPending(new ServiceClient(current));
        List<String> problems = new ArrayList<>();
        List<UUID> orders = new ArrayList<>();
        for (TransitionStream.Chain chain : stream.chains()) {
            if (chain.unexpected != null) {
                problems.add(chain.toString());
                continue;
            }
            if (chain.orderId() == null) {
                continue; // nothing was sent for it
            }
            orders.add(UUID.fromString(chain.orderId()));
            long created = ItDatabase.count("select count(*) from orders where customer_id = ?", chain.customer);
            List<String> history = history(chain.orderId());
            if (created != 1 || !history.equals(chain.expectedHistory())) {
                problems.add(chain + ": " + created + " orders, history " + history);
            }
        }
        if (held != null) {
            List<String> heldHistory = history(held.id);
            if (!heldHistory.equals(List.of("PAY:" + held.payKey, "PAYMENT_SUCCEEDED:" + held.eventId, heldLast))) {
                problems.add("held order " + held.id + " history " + heldHistory);
            }
            orders.add(held.uuid());
        }
        System.out.println(stream.chains().size() + " chains, retried: " + stream.chains().stream()
                .filter(c -> c.retryAnswer != null).map(c -> c.pending + " " + (c.retryAnswer.replayed()
                        ? "replayed" : "executed")).toList());
        assertAll(
                () -> assertEquals(List.of(), ItDatabase.checker().checkAcknowledged(stream.acks()),
                        "every acknowledged write is in the database"),
                () -> assertEquals(List.of(), problems, "every acknowledged or retried write exactly once"),
                () -> assertEquals(List.of(), ItDatabase.checker().check(orders), "invariants"));
    }

    /** No errors before the stop (the first {@code linesBeforeStop} lines), none but the tolerated ones after. */
    private static void assertLogClean(ServiceProcess instance, long linesBeforeStop) {
        String log = instance.logText();
        System.out.println(instance + " log: " + LogScan.toleratedSummary(log));
        assertEquals(List.of(), LogScan.problemsOfStoppedInstance(log, linesBeforeStop), "errors in " + instance.log());
    }

    private static List<String> history(String orderId) {
        return ItDatabase.strings("select event || ':' || coalesce(request_key, '') from order_transitions"
                + " where order_id = ?::uuid order by seq", orderId);
    }

    private ServiceProcess next() {
        return next(ENV);
    }

    private ServiceProcess next(Map<String, String> env) {
        ServiceProcess instance = ServiceProcess.start("GracefulShutdownIT-" + (started.size() + 1), env);
        started.add(instance);
        return instance;
    }

    /** A PAID order and the key its held SHIP will use. */
    private record Held(String id, String customer, String payKey, String eventId, String shipKey) {
        UUID uuid() {
            return UUID.fromString(id);
        }
    }

    private static Held paidOrder(ServiceClient client) {
        String customer = ServiceClient.newCustomer();
        Answer created = ServiceClient.untilFinal(() -> client.createOrder(customer, UUID.randomUUID().toString()), 10,
                Duration.ofSeconds(60));
        assertEquals(201, created.status(), created.toString());
        String id = created.field("id");
        String payKey = UUID.randomUUID().toString();
        assertEquals(200, client.transition(id, "pay", customer, payKey, ServiceClient.PAY_BODY).status());
        String eventId = "evt-" + UUID.randomUUID();
        assertEquals(200, client.callback(ServiceClient.providerEvent(eventId, "PAYMENT_SUCCEEDED", id, "txn-" + id))
                .status());
        return new Held(id, customer, payKey, eventId, UUID.randomUUID().toString());
    }

    /**
     * Locks the order's row in an open transaction on {@code lock}, sends SHIP for it and waits until the service's
     * statement is blocked on that lock: the request is then in flight for as long as the test wants.
     */
    private static CompletableFuture<Answer> shipWhileLocked(Connection lock, ServiceClient client, Held held)
            throws SQLException {
        lock.setAutoCommit(false);
        try (PreparedStatement ps = lock.prepareStatement("select id from orders where id = ? for update")) {
            ps.setObject(1, held.uuid());
            ps.executeQuery().close();
        }
        CompletableFuture<Answer> ship = client.transitionAsync(held.id, "ship", held.customer, held.shipKey,
                ServiceClient.SHIP_BODY);
        awaitTrue(() -> ship.isDone() || ItDatabase.count("select count(*) from pg_stat_activity where datname = ?"
                + " and wait_event_type = 'Lock' and query like 'with rule %'", ItDatabase.NAME) > 0,
                Duration.ofSeconds(60), "the SHIP waits on the row lock");
        assertFalse(ship.isDone(), "the SHIP must be held, not answered: " + (ship.isDone() ? ship.join() : ""));
        return ship;
    }

    /**
     * Polls readiness every 100 ms like a load balancer: takes the instance out of rotation at the first 503 or
     * refused connection, and records what it saw (200, 503, -1 refused, -2 no answer in time).
     */
    private static final class Probe {
        private final ServiceProcess instance;
        private final AtomicBoolean inRotation;
        private final List<Integer> seen = new CopyOnWriteArrayList<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;

        Probe(ServiceProcess instance, AtomicBoolean inRotation) {
            this.instance = instance;
            this.inRotation = inRotation;
            this.thread = new Thread(this::poll, "readiness-probe");
            this.thread.setDaemon(true);
        }

        Probe start() {
            thread.start();
            return this;
        }

        private void poll() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            for (int i = 0; i < 1800 && running.get() && System.nanoTime() < deadline; i++) {
                int status = instance.readiness();
                seen.add(status);
                if (status == 503 || status == ServiceProcess.REFUSED) {
                    inRotation.set(false);
                }
                if (status == ServiceProcess.REFUSED && !instance.isAlive()) {
                    return;
                }
                pause(100);
            }
        }

        boolean saw(int status) {
            return seen.contains(status);
        }

        boolean sawBefore(int first, int then) {
            int a = seen.indexOf(first);
            int b = seen.indexOf(then);
            return a >= 0 && b >= 0 && a < b;
        }

        /** What was seen, with repeats collapsed: e.g. [200, 503, -1]. */
        List<Integer> sequence() {
            List<Integer> out = new ArrayList<>();
            for (int s : seen) {
                if (out.isEmpty() || out.get(out.size() - 1) != s) {
                    out.add(s);
                }
            }
            return out;
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join(10_000);
        }
    }

    private static void awaitTrue(BooleanSupplier condition, Duration bound, String what) {
        long deadline = System.nanoTime() + bound.toNanos();
        for (long i = 0; i < bound.toMillis() / 100 + 1 && System.nanoTime() < deadline; i++) {
            if (condition.getAsBoolean()) {
                return;
            }
            pause(100);
        }
        assertTrue(condition.getAsBoolean(), what + " (not within " + bound + ")");
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
