package io.orderflow.process;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Concurrently;
import io.orderflow.support.InvariantChecker;
import io.orderflow.support.ItDatabase;
import io.orderflow.support.LogScan;
import io.orderflow.support.RedisDb;
import io.orderflow.support.ServiceClient.Answer;
import io.orderflow.support.ServiceClient;
import io.orderflow.support.ServiceProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;

/**
 * Three replicas of the packaged service — three real processes on their own ports — against one PostgreSQL database
 * and one Redis, as in the Kubernetes deployment. The database is dropped and created anew first, and the three
 * start at the same moment, so their Flyway migrations really race on an empty schema. The replicas are shared by
 * the test methods; each method checks the invariants of the orders it made and the replicas' logs, and the end
 * checks the whole database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiReplicaIT {

    private static final Pattern MARKED = Pattern.compile("Idempotency sweep: (\\d+) marked EXPIRED");
    private static final Pattern PURGED = Pattern.compile("Idempotency sweep: \\d+ marked EXPIRED, (\\d+) purged");
    private static final Duration RETRY_BOUND = Duration.ofSeconds(60);

    private List<ServiceProcess> replicas = List.of();
    private List<ServiceClient> clients;

    @BeforeAll
    void startThreeReplicasTogetherOnAFreshDatabase() {
        // an instance some earlier test class left running would migrate the fresh database before the race
        ServiceProcess.killAllStarted();
        ItDatabase.recreate();
        RedisDb.flush();
        replicas = ServiceProcess.startAll(List.of("MultiReplicaIT-1", "MultiReplicaIT-2", "MultiReplicaIT-3"),
                Map.of("IDEMPOTENCY_SWEEPER_EVERY", "1s"));
        clients = replicas.stream().map(ServiceClient::new).toList();
    }

    @AfterAll
    void stopTheReplicasAndCheckTheWholeDatabase() {
        List<Long> beforeStop = replicas.stream().map(ServiceProcess::logLineCount).toList();
        replicas.forEach(ServiceProcess::sigterm);
        replicas.forEach(r -> r.awaitExit(Duration.ofSeconds(90)));
        List<Executable> checks = new ArrayList<>();
        for (int i = 0; i < replicas.size(); i++) {
            ServiceProcess r = replicas.get(i);
            long mark = beforeStop.get(i);
            System.out.println(r + " log: " + LogScan.toleratedSummary(r.logText()));
            checks.add(() -> assertEquals(List.of(), LogScan.problemsOfStoppedInstance(r.logText(), mark),
                    "errors in " + r.log()));
        }
        checks.add(() -> assertEquals(List.of(), ItDatabase.checker().check(), "the whole database is consistent"));
        assertAll(checks);
    }

    @Test
    void shouldMigrateOnceWhenThreeReplicasStartTogetherOnAnEmptyDatabase() throws IOException {
        List<String> shipped;
        try (var files = Files.list(Path.of("src/main/resources/db/migration"))) {
            shipped = files.map(f -> f.getFileName().toString()).filter(n -> n.matches("V\\d+__.*\\.sql"))
                    .map(n -> n.substring(1, n.indexOf("__"))).sorted(Comparator.comparingInt(Integer::parseInt)).toList();
        }
        assertEquals(shipped, ItDatabase.strings("select version from flyway_schema_history"
                + " where version is not null and success order by installed_rank"), "each migration applied once");
        String applied = "Successfully applied " + shipped.size() + " migrations";
        long migrators = replicas.stream().filter(r -> r.logText().contains(applied)).count();
        long waiters = replicas.stream().filter(r -> r.logText().contains("is up to date. No migration necessary"))
                .count();
        replicas.forEach(r -> System.out.println(r + " flyway: " + r.logText().lines()
                .filter(l -> l.contains("flywaydb")).map(l -> l.substring(11, 23) + " " + l.replaceAll(".*\\) ", ""))
                .toList()));
        assertEquals(1, migrators, "exactly one replica migrated");
        assertEquals(2, waiters, "the other two waited for Flyway's lock and found nothing to do");
        assertLogsClean();
    }

    @Test
    void shouldApplyEachPaymentCallbackOnceAcrossThreeReplicas() {
        List<Pending> orders = pendingOrders(200);
        List<String> problems = new ArrayList<>();
        List<List<Answer[]>> deliveries = Concurrently.map(orders, 16, this::deliverDuplicates);
        for (int i = 0; i < orders.size(); i++) {
            Pending o = orders.get(i);
            List<Answer> firsts = deliveries.get(i).stream().map(d -> d[0]).toList();
            List<Answer> mine = deliveries.get(i).stream().map(d -> d[1]).toList();
            // 503 + Retry-After is the documented transient answer (a provider re-sends); anything else 5xx is a bug
            if (firsts.stream().anyMatch(a -> !a.answered() || (a.is5xx() && a.status() != 503))
                    || mine.stream().anyMatch(a -> a.status() != 200)) {
                problems.add(o.id + " first answers " + firsts + ", final answers " + mine);
                continue;
            }
            List<Answer> executed = mine.stream().filter(a -> !a.replayed()).toList();
            if (executed.size() != 1 || !"applied".equals(executed.get(0).field("outcome"))) {
                problems.add(o.id + " was executed by " + executed.size() + " deliveries: " + mine);
            }
            long captures = ItDatabase.count("select count(*) from order_transitions where order_id = ?"
                    + " and event = 'PAYMENT_SUCCEEDED'", o.uuid());
            String row = ItDatabase.string("select status || ' ' || payment_txn_id from orders where id = ?",
                    o.uuid());
            if (captures != 1 || !("PAID txn-" + o.id).equals(row)) {
                problems.add(o.id + ": " + captures + " PAYMENT_SUCCEEDED, order " + row);
            }
        }
        assertEquals(List.of(), problems);
        assertEquals(0, ItDatabase.count("select count(*) from payment_anomalies where kind = 'double-capture'"
                + " and order_id = any(?::uuid[])", (Object) orders.stream().map(Pending::id).toArray(String[]::new)),
                "a re-sent capture is never a double capture");
        assertInvariants(orders.stream().map(Pending::uuid).toList());
        assertLogsClean();
    }

    @Test
    void shouldStoreOneOrderForOneKeyAndReplayItsBytesFromEveryReplica() {
        List<String> problems = new ArrayList<>();
        List<UUID> created = new ArrayList<>();
        List<String[]> keys = IntStream.range(0, 20).mapToObj(i -> new String[] { ServiceClient.newCustomer(),
                UUID.randomUUID().toString() }).toList();
        List<List<Answer>> rounds = Concurrently.map(keys, 4, k -> sameKeyOnEveryReplica(k[0], k[1]));
        for (int i = 0; i < keys.size(); i++) {
            String customer = keys.get(i)[0];
            String key = keys.get(i)[1];
            List<Answer> answers = rounds.get(i);
            if (answers.stream().anyMatch(a -> a.status() != 201)) {
                problems.add(key + " answers " + answers);
                continue;
            }
            byte[] first = answers.get(0).body();
            if (answers.stream().anyMatch(a -> !Arrays.equals(first, a.body()))) {
                problems.add(key + " got different bodies: " + answers);
            }
            if (answers.stream().filter(a -> !a.replayed()).count() != 1) {
                problems.add(key + " was executed " + answers.stream().filter(a -> !a.replayed()).count()
                        + " times: " + answers);
            }
            long orders = ItDatabase.count("select count(*) from orders where customer_id = ?", customer);
            long records = ItDatabase.count("select count(*) from idempotency_keys where idem_key = ?", key);
            if (orders != 1 || records != 1) {
                problems.add(key + ": " + orders + " orders, " + records + " stored responses");
            }
            created.add(UUID.fromString(answers.get(0).field("id")));
        }
        assertEquals(List.of(), problems);

        // afterwards every replica replays the stored response: first from Redis, then, with Redis emptied, from
        // PostgreSQL — the same bytes each time
        for (String layer : List.of("redis", "postgresql")) {
            if (layer.equals("postgresql")) {
                RedisDb.flush();
            }
            for (int i = 0; i < keys.size(); i++) {
                byte[] stored = rounds.get(i).get(0).body();
                for (ServiceClient client : clients) {
                    Answer replay = client.createOrder(keys.get(i)[0], keys.get(i)[1]);
                    if (replay.status() != 201 || !replay.replayed() || !Arrays.equals(stored, replay.body())) {
                        problems.add(layer + " replay of " + keys.get(i)[1] + ": " + replay);
                    }
                }
            }
        }
        assertEquals(List.of(), problems);
        assertInvariants(created);
        assertLogsClean();
    }

    @Test
    void shouldLetExactlyOneOfShipAndCancelWinOnEachOrderAcrossReplicas() {
        List<Pending> orders = paidOrders(100);
        List<String> problems = new ArrayList<>();
        List<Answer[]> races = Concurrently.map(orders, 16, o -> {
            ServiceClient shipper = clients.get(o.index % 3);
            ServiceClient canceller = clients.get((o.index + 1) % 3);
            CompletableFuture<Answer> ship = shipper.transitionAsync(o.id, "ship", o.customer,
                    UUID.randomUUID().toString(), ServiceClient.SHIP_BODY);
            CompletableFuture<Answer> cancel = canceller.transitionAsync(o.id, "cancel", o.customer,
                    UUID.randomUUID().toString(), ServiceClient.CANCEL_BODY);
            return new Answer[] { ship.join(), cancel.join() };
        });
        int shipWins = 0;
        int cancelWins = 0;
        for (int i = 0; i < orders.size(); i++) {
            Pending o = orders.get(i);
            Answer ship = races.get(i)[0];
            Answer cancel = races.get(i)[1];
            boolean shipWon = ship.status() == 200 && cancel.status() == 409
                    && "illegal-transition".equals(cancel.problem());
            boolean cancelWon = cancel.status() == 200 && ship.status() == 409
                    && "illegal-transition".equals(ship.problem());
            if (!shipWon && !cancelWon) {
                problems.add(o.id + ": ship " + ship + " / cancel " + cancel);
                continue;
            }
            shipWins += shipWon ? 1 : 0;
            cancelWins += cancelWon ? 1 : 0;
            String expected = shipWon ? "SHIPPED SHIP" : "REFUND_PENDING CANCEL";
            String actual = ItDatabase.string("select o.status || ' ' || string_agg(t.event, ',') from orders o join"
                    + " order_transitions t on t.order_id = o.id and t.event in ('SHIP', 'CANCEL') where o.id = ?"
                    + " group by o.status", o.uuid());
            if (!expected.equals(actual)) {
                problems.add(o.id + ": expected " + expected + ", the database has " + actual);
            }
        }
        System.out.println("SHIP vs CANCEL across replicas: ship won " + shipWins + ", cancel won " + cancelWins);
        assertEquals(List.of(), problems);
        assertInvariants(orders.stream().map(Pending::uuid).toList());
        assertLogsClean();
    }

    @Test
    void shouldExpireEveryDueKeyExactlyOnceWithThreeSweepersAtOnce() {
        long markedBefore = logSum(MARKED);
        long purgedBefore = logSum(PURGED);
        String scope = "it-sweep " + UUID.randomUUID();
        ItDatabase.update("insert into idempotency_keys (scope, idem_key, tier, state, fingerprint, created_at,"
                + " expires_at) select ?, 'due-' || n, 'ORDERS', 'DONE', 'f', now() - interval '60 days',"
                + " now() - interval '1 day' from generate_series(1, 3000) n", scope);
        ItDatabase.update("insert into idempotency_keys (scope, idem_key, tier, state, fingerprint, created_at,"
                + " expires_at, expired_at) select ?, 'old-' || n, 'ORDERS', 'EXPIRED', 'f',"
                + " now() - interval '60 days', now() - interval '20 days', now() - interval '8 days'"
                + " from generate_series(1, 300) n", scope);

        Supplier<Long> left = () -> ItDatabase.count("select count(*) from idempotency_keys where scope = ?"
                + " and (state <> 'EXPIRED' or expired_at < now() - interval '7 days')", scope);
        awaitTrue(() -> left.get() == 0, Duration.ofSeconds(120), "every due row marked, every old row purged");
        awaitTrue(() -> logSum(MARKED) - markedBefore >= 3000 && logSum(PURGED) - purgedBefore >= 300,
                Duration.ofSeconds(30), "the sweeps are logged");
        // the replicas keep sweeping every second: three more rounds would show a row marked a second time
        pause(Duration.ofSeconds(3));

        replicas.forEach(r -> System.out.println(r + " marked " + LogScan.sum(r.logText(), MARKED) + ", purged "
                + LogScan.sum(r.logText(), PURGED)));
        assertEquals(3000, logSum(MARKED) - markedBefore, "the replicas together marked each due row once");
        assertEquals(300, logSum(PURGED) - purgedBefore, "and purged each old row once");
        assertEquals(3000, ItDatabase.count("select count(*) from idempotency_keys where scope = ?"
                + " and state = 'EXPIRED' and expired_at > now() - interval '1 hour'", scope));
        assertEquals(0, ItDatabase.count("select count(*) from idempotency_keys where scope = ? and idem_key like"
                + " 'old-%'", scope));
        assertLogsClean();
    }

    // ----------------------------------------------------------------------------------------------------------

    private record Pending(int index, String id, String customer) {
        UUID uuid() {
            return UUID.fromString(id);
        }
    }

    /** n orders in PAYMENT_PENDING, created and paid round-robin across the replicas. */
    private List<Pending> pendingOrders(int n) {
        return Concurrently.map(IntStream.range(0, n).boxed().toList(), 16, i -> {
            ServiceClient client = clients.get(i % 3);
            String customer = ServiceClient.newCustomer();
            String createKey = UUID.randomUUID().toString();
            Answer created = ServiceClient.untilFinal(() -> client.createOrder(customer, createKey), 10, RETRY_BOUND);
            assertEquals(201, created.status(), created.toString());
            String id = created.field("id");
            String payKey = UUID.randomUUID().toString();
            Answer paid = ServiceClient.untilFinal(() -> clients.get((i + 1) % 3).transition(id, "pay", customer,
                    payKey, ServiceClient.PAY_BODY), 10, RETRY_BOUND);
            assertEquals(200, paid.status(), paid.toString());
            return new Pending(i, id, customer);
        });
    }

    private List<Pending> paidOrders(int n) {
        List<Pending> orders = pendingOrders(n);
        Concurrently.map(orders, 16, o -> {
            String body = ServiceClient.providerEvent("evt-" + UUID.randomUUID(), "PAYMENT_SUCCEEDED", o.id,
                    "txn-" + o.id);
            Answer ack = ServiceClient.untilFinal(() -> clients.get((o.index + 2) % 3).callback(body), 10,
                    RETRY_BOUND);
            assertEquals(200, ack.status(), ack.toString());
            return ack;
        });
        return orders;
    }

    /**
     * One capture, delivered four times at once: event A to each replica, and the same capture re-announced under a
     * new event id (B, same providerTxnId) to one of them. Unanswered, 5xx or in-flight deliveries are re-sent as a
     * provider would; the first and the final answers are returned.
     */
    private List<Answer[]> deliverDuplicates(Pending o) {
        String txn = "txn-" + o.id;
        String a = ServiceClient.providerEvent("evt-a-" + UUID.randomUUID(), "PAYMENT_SUCCEEDED", o.id, txn);
        String b = ServiceClient.providerEvent("evt-b-" + UUID.randomUUID(), "PAYMENT_SUCCEEDED", o.id, txn);
        List<ServiceClient> targets = List.of(clients.get(0), clients.get(1), clients.get(2), clients.get(o.index % 3));
        List<String> bodies = List.of(a, a, a, b);
        List<CompletableFuture<Answer>> sent = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
            sent.add(targets.get(i).callbackAsync(bodies.get(i)));
        }
        List<Answer[]> answers = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++) {
            Answer first = sent.get(i).join();
            ServiceClient target = targets.get(i);
            String body = bodies.get(i);
            answers.add(new Answer[] { first, first.mustRetry() || first.status() == 409
                    ? ServiceClient.untilFinal(() -> target.callback(body), 20, RETRY_BOUND) : first });
        }
        return answers;
    }

    /** POST /orders with one key, twice to each replica at once; in-flight answers retried as a client would. */
    private List<Answer> sameKeyOnEveryReplica(String customer, String key) {
        List<ServiceClient> targets = new ArrayList<>(clients);
        targets.addAll(clients);
        List<CompletableFuture<Answer>> sent = targets.stream().map(c -> c.createOrderAsync(customer, key)).toList();
        List<Answer> answers = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++) {
            Answer first = sent.get(i).join();
            ServiceClient target = targets.get(i);
            answers.add(first.mustRetry() || first.status() == 409
                    ? ServiceClient.untilFinal(() -> target.createOrder(customer, key), 20, RETRY_BOUND) : first);
        }
        return answers;
    }

    private static void assertInvariants(List<UUID> orders) {
        List<InvariantChecker.Violation> violations = ItDatabase.checker().check(orders);
        assertEquals(List.of(), violations, "invariants of the " + orders.size() + " orders");
    }

    private void assertLogsClean() {
        for (ServiceProcess r : replicas) {
            String log = r.logText();
            System.out.println(r + " log: " + LogScan.toleratedSummary(log));
            assertEquals(List.of(), LogScan.problems(log, LogScan.TOLERATED), "errors in " + r.log());
        }
    }

    private long logSum(Pattern pattern) {
        return replicas.stream().mapToLong(r -> LogScan.sum(r.logText(), pattern)).sum();
    }

    private static void awaitTrue(Supplier<Boolean> condition, Duration bound, String what) {
        long deadline = System.nanoTime() + bound.toNanos();
        for (int i = 0; i < bound.toMillis() / 250 + 1; i++) {
            if (condition.get()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                break;
            }
            pause(Duration.ofMillis(250));
        }
        assertTrue(condition.get(), what + " (not within " + bound + ")");
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
