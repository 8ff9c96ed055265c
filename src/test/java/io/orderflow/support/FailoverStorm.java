package io.orderflow.support;

import io.orderflow.order.domain.OrderEvent;
import io.orderflow.support.ServiceClient.Answer;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A keyed storm against several replicas, for the failover tests: workers walk new orders through create → PAY →
 * the provider's signed PAYMENT_SUCCEEDED delivered twice at once (the same event id, to two replicas) → SHIP, or
 * CANCEL, or SHIP and CANCEL racing. Every request carries its key (or event id) and is sent, with the same key and
 * body, to one replica after another until it gets a final answer (a 2xx or a 4xx other than 409 request-in-flight),
 * as a client that did not get an answer must. Every answer is recorded with when it was sent and received.
 *
 * <p>{@link #verify} then holds the database (read through whatever is the primary now) against everything the
 * clients were told: each request had exactly one effect, each answer agrees with the final state, nothing
 * acknowledged is missing, and the invariant checker finds nothing.
 */
public final class FailoverStorm {

    /** How a chain ends. */
    enum Ending {
        SHIP, CANCEL, RACE
    }

    /** One answer (or the failure standing in for one) to one attempt of a request. */
    public record Attempt(Request request, long sentNanos, long answeredNanos, Answer answer) {
    }

    /** One logical request: its label, its sends (all with the same key and body), its final answer. */
    public final class Request {
        final String label;
        final OrderEvent event;
        final String key;
        final List<Attempt> attempts = new CopyOnWriteArrayList<>();
        /** Sends this request (always the same key and body) to a replica. */
        Function<ServiceClient, Answer> send;
        volatile Answer last;

        Request(String label, OrderEvent event, String key) {
            this.label = label;
            this.event = event;
            this.key = key;
        }

        boolean isFinal() {
            return last != null && isFinal(last);
        }

        static boolean isFinal(Answer a) {
            return a.answered() && a.status() / 100 == 2 || a.answered() && a.status() / 100 == 4
                    && !(a.status() == 409 && "request-in-flight".equals(a.problem()));
        }

        @Override
        public String toString() {
            return label + " " + key + ": " + attempts.stream().map(a -> a.answer().answered()
                    ? a.answer().status() + (a.answer().replayed() ? "r" : "") : "none").toList();
        }
    }

    /** One order's walk. */
    final class Chain {
        final int index;
        final Ending ending;
        final String customer = ServiceClient.newCustomer();
        final Request create = new Request("create", null, UUID.randomUUID().toString());
        final Request pay = new Request("pay", OrderEvent.PAY, UUID.randomUUID().toString());
        final String eventId = "evt-" + UUID.randomUUID();
        final Request capture = new Request("capture", OrderEvent.PAYMENT_SUCCEEDED, eventId);
        final Request captureAgain = new Request("capture-again", OrderEvent.PAYMENT_SUCCEEDED, eventId);
        final Request ship = new Request("ship", OrderEvent.SHIP, UUID.randomUUID().toString());
        final Request cancel = new Request("cancel", OrderEvent.CANCEL, UUID.randomUUID().toString());
        volatile String orderId;
        volatile String captureBody;
        volatile String unexpected;

        Chain(int index) {
            this.index = index;
            this.ending = Ending.values()[index % 3];
            create.send = to -> to.createOrder(customer, create.key);
            pay.send = to -> to.transition(orderId, "pay", customer, pay.key, ServiceClient.PAY_BODY);
            capture.send = to -> to.callback(captureBody);
            captureAgain.send = capture.send;
            ship.send = to -> to.transition(orderId, "ship", customer, ship.key, ServiceClient.SHIP_BODY);
            cancel.send = to -> to.transition(orderId, "cancel", customer, cancel.key, ServiceClient.CANCEL_BODY);
        }

        List<Request> sent() {
            List<Request> all = new ArrayList<>(List.of(create, pay, capture, captureAgain));
            if (ending != Ending.CANCEL) {
                all.add(ship);
            }
            if (ending != Ending.SHIP) {
                all.add(cancel);
            }
            return all.stream().filter(r -> !r.attempts.isEmpty()).toList();
        }

        @Override
        public String toString() {
            return "chain " + index + " " + ending + " order " + orderId + " " + sent()
                    + (unexpected == null ? "" : " UNEXPECTED " + unexpected);
        }
    }

    private static final Duration REQUEST_BOUND = Duration.ofSeconds(120);

    private final List<ServiceClient> replicas;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicInteger chainCount = new AtomicInteger();
    private final List<Chain> chains = new CopyOnWriteArrayList<>();
    private final List<Attempt> attempts = new CopyOnWriteArrayList<>();
    private Workers workers;

    public FailoverStorm(List<ServiceClient> replicas) {
        this.replicas = List.copyOf(replicas);
    }

    public FailoverStorm start(int workerCount) {
        running.set(true);
        workers = Workers.start("storm", workerCount, this::work);
        return this;
    }

    /** Stops starting chains; each worker finishes its chain (every request until final, bounded) and ends. */
    public void stop() {
        running.set(false);
        if (workers != null) {
            workers.join(REQUEST_BOUND.multipliedBy(6));
        }
    }

    /** Final 2xx answers so far. */
    public long acknowledged() {
        return attempts.stream().filter(a -> a.answer().is2xx()).count();
    }

    public List<Attempt> attempts() {
        return List.copyOf(attempts);
    }

    /** The first executed (not replayed) 2xx answer to a request sent at or after {@code nanos}; null when none. */
    public Attempt firstSuccessSentAfter(long nanos) {
        return attempts.stream().filter(a -> a.sentNanos() >= nanos && a.answer().is2xx() && !a.answer().replayed())
                .min(Comparator.comparingLong(Attempt::answeredNanos)).orElse(null);
    }

    /** Answers received between the two instants, by status ("none" for no answer), e.g. {201=40, 503=12}. */
    public Map<String, Long> answersBetween(long fromNanos, long toNanos) {
        Map<String, Long> byStatus = new TreeMap<>();
        for (Attempt a : attempts) {
            if (a.answeredNanos() >= fromNanos && a.answeredNanos() <= toNanos) {
                byStatus.merge(a.answer().answered() ? String.valueOf(a.answer().status()) : "none", 1L, Long::sum);
            }
        }
        return byStatus;
    }

    /** Every answer that is a 5xx other than 503 with Retry-After, or no answer at all. */
    public List<String> unexpectedTransientAnswers() {
        List<String> found = new ArrayList<>();
        for (Attempt a : attempts) {
            Answer answer = a.answer();
            if (!answer.answered()) {
                found.add(a.request().label + " " + a.request().key + ": no answer (" + answer.failure() + ")");
            } else if (answer.is5xx() && (answer.status() != 503
                    || answer.headers().firstValue("Retry-After").isEmpty())) {
                found.add(a.request().label + " " + a.request().key + ": " + answer);
            }
        }
        return found;
    }

    // ----------------------------------------------------------------------------------------------------------

    private void work() {
        while (running.get()) {
            Chain chain = new Chain(chainCount.getAndIncrement());
            chains.add(chain);
            walk(chain);
        }
    }

    private void walk(Chain chain) {
        int i = chain.index;
        Answer created = untilFinal(chain.create, i);
        if (created.status() != 201) {
            chain.unexpected = "create answered " + created;
            return;
        }
        chain.orderId = created.field("id");
        Answer paid = untilFinal(chain.pay, i + 1);
        if (paid.status() != 200) {
            chain.unexpected = "pay answered " + paid;
            return;
        }
        chain.captureBody = ServiceClient.providerEvent(chain.eventId, "PAYMENT_SUCCEEDED", chain.orderId,
                "txn-" + chain.orderId);
        // the provider delivers its event twice at once, to two replicas
        CompletableFuture<Answer> again = CompletableFuture.supplyAsync(() -> untilFinal(chain.captureAgain, i + 1));
        Answer captured = untilFinal(chain.capture, i);
        Answer capturedAgain = again.join();
        if (captured.status() != 200 || capturedAgain.status() != 200) {
            chain.unexpected = "capture answered " + captured + " / " + capturedAgain;
            return;
        }
        switch (chain.ending) {
            case SHIP -> expect(chain, untilFinal(chain.ship, i), 200);
            case CANCEL -> expect(chain, untilFinal(chain.cancel, i), 200);
            case RACE -> {
                CompletableFuture<Answer> cancelled = CompletableFuture.supplyAsync(
                        () -> untilFinal(chain.cancel, i + 1));
                Answer shipped = untilFinal(chain.ship, i);
                Answer cancel = cancelled.join();
                boolean oneWon = shipped.status() == 200 && isIllegal(cancel)
                        || cancel.status() == 200 && isIllegal(shipped);
                if (!oneWon) {
                    chain.unexpected = "race answered ship " + shipped + " / cancel " + cancel;
                }
            }
        }
    }

    private static boolean isIllegal(Answer a) {
        return a.status() == 409 && "illegal-transition".equals(a.problem());
    }

    private static void expect(Chain chain, Answer answer, int status) {
        if (answer.status() != status) {
            chain.unexpected = "expected " + status + ", got " + answer;
        }
    }

    /**
     * Sends until the answer is final, bounded, recording every attempt. The first copy goes to replica
     * {@code first}; each retry to the next one, as a client behind a load balancer lands anywhere.
     */
    private Answer untilFinal(Request request, int first) {
        long deadline = System.nanoTime() + REQUEST_BOUND.toNanos();
        for (int attempt = 0; ; attempt++) {
            ServiceClient to = replicas.get(Math.floorMod(first + attempt, replicas.size()));
            long sent = System.nanoTime();
            Answer answer = request.send.apply(to);
            Attempt a = new Attempt(request, sent, System.nanoTime(), answer);
            request.attempts.add(a);
            attempts.add(a);
            request.last = answer;
            if (Request.isFinal(answer) || System.nanoTime() > deadline) {
                return answer;
            }
            long wait = answer.answered() ? answer.headers().firstValue("Retry-After")
                    .map(v -> Long.parseLong(v) * 1000).orElse(200L) : 200L;
            ServiceProcess.sleep(Math.min(wait, 1000));
        }
    }

    // ----------------------------------------------------------------------------------------------------------

    /** What {@link #verify} found, and the figures to print. */
    public record Verdict(int chains, int requests, long attempts, List<String> problems, List<String> doubled,
            List<InvariantChecker.Violation> unacknowledged, List<InvariantChecker.Violation> violations,
            int ordersChecked) {
    }

    /**
     * Holds the database against what the clients were told: per chain, exactly the history its final answers
     * promise (each keyed request once, the race's loser not at all), one order per customer; every 2xx or stored
     * 4xx a client ever got for a request is byte for byte the same answer, at most one of them executed rather than
     * replayed, and agrees with the history (status and version at that event); every acknowledged write is stored;
     * the invariant checker finds no violation in the whole database.
     */
    public Verdict verify(HaRig rig) {
        List<String> problems = new ArrayList<>();
        List<String> doubled = new ArrayList<>();
        List<Chain> walked = chains.stream().filter(c -> !c.create.attempts.isEmpty()).toList();
        List<InvariantChecker.Ack> acks = new ArrayList<>();
        Map<String, List<String[]>> histories;
        Map<String, Long> ordersByCustomer;
        try (Connection c = rig.connect()) {
            histories = histories(c, walked.stream().map(ch -> ch.orderId).filter(Objects::nonNull)
                    .toList());
            ordersByCustomer = ordersByCustomer(c, walked.stream().map(ch -> ch.customer).toList());
        } catch (SQLException e) {
            throw new IllegalStateException("reading the rig's database failed: " + e.getMessage(), e);
        }
        for (Chain chain : walked) {
            if (chain.unexpected != null) {
                problems.add(chain.toString());
                continue;
            }
            long orders = ordersByCustomer.getOrDefault(chain.customer, 0L);
            if (orders != 1) {
                (orders > 1 ? doubled : problems).add(chain + ": " + orders + " orders for its customer");
                continue;
            }
            List<String[]> history = histories.getOrDefault(chain.orderId, List.of());
            List<String> expected = new ArrayList<>();
            for (Request r : List.of(chain.pay, chain.capture, chain.ship, chain.cancel)) {
                if (r.isFinal() && r.last.is2xx()) {
                    expected.add(r.event + ":" + r.key);
                }
            }
            List<String> actual = history.stream().map(h -> h[0]).toList();
            if (!actual.equals(expected)) {
                boolean twice = actual.size() > new HashSet<>(actual).size();
                (twice ? doubled : problems).add(chain + ": history " + actual + ", the answers promise " + expected);
            }
            acks.add(InvariantChecker.Ack.created(UUID.fromString(chain.orderId)));
            for (Request r : chain.sent()) {
                checkAnswers(chain, r, history, problems, doubled);
                if (r.event != null && r.last.is2xx()) {
                    acks.add(new InvariantChecker.Ack(UUID.fromString(chain.orderId), r.event));
                }
            }
            // the two deliveries of one event share its id: one answer between them, executed at most once
            List<Answer> captureAnswers = List.of(chain.capture, chain.captureAgain).stream()
                    .flatMap(r -> r.attempts.stream()).map(Attempt::answer).filter(Request::isFinal).toList();
            long executedCaptures = captureAnswers.stream().filter(a -> a.is2xx() && !a.replayed()).count();
            if (executedCaptures > 1) {
                doubled.add(chain + ": the event was executed " + executedCaptures + " times " + captureAnswers);
            } else if (captureAnswers.stream()
                    .anyMatch(a -> !Arrays.equals(a.body(), captureAnswers.get(0).body()))) {
                problems.add(chain + ": the event's deliveries were answered " + captureAnswers);
            }
        }
        InvariantChecker checker = rig.checker();
        InvariantChecker.Report report = checker.report(null);
        return new Verdict(walked.size(), walked.stream().mapToInt(c -> c.sent().size()).sum(), attempts.size(),
                problems, doubled, checker.checkAcknowledged(acks), report.violations(), report.ordersChecked());
    }

    private static void checkAnswers(Chain chain, Request r, List<String[]> history, List<String> problems,
            List<String> doubled) {
        List<Answer> finals = r.attempts.stream().map(Attempt::answer).filter(Request::isFinal).toList();
        if (finals.isEmpty()) {
            problems.add(chain + ": " + r + " never got a final answer");
            return;
        }
        byte[] first = finals.get(0).body();
        if (finals.stream().anyMatch(a -> !Arrays.equals(first, a.body()) || a.status() != finals.get(0).status())) {
            problems.add(chain + ": " + r.label + " got different final answers " + finals);
        }
        long executed = finals.stream().filter(a -> a.is2xx() && !a.replayed()).count();
        if (executed > 1) {
            doubled.add(chain + ": " + r.label + " was executed " + executed + " times " + finals);
        }
        if (r.event == null || r.event == OrderEvent.PAYMENT_SUCCEEDED) {
            return; // a creation is its order, checked above; a capture's answer is the provider's ack
        }
        String[] row = history.stream().filter(h -> h[0].equals(r.event + ":" + r.key)).findFirst().orElse(null);
        for (Answer a : finals) {
            if (a.is2xx() && (row == null || !row[1].equals(a.field("version")) || !row[2].equals(a.field("status")))) {
                problems.add(chain + ": " + r.label + " answered " + a + " but the history has "
                        + (row == null ? "no such row" : "version " + row[1] + " " + row[2]));
            }
            if (!a.is2xx() && row != null) {
                problems.add(chain + ": " + r.label + " answered " + a + " but took effect");
            }
        }
    }

    /** order id → its history rows as {event:key, seq, to_status}, oldest first. */
    private static Map<String, List<String[]>> histories(Connection c, List<String> orderIds) throws SQLException {
        Map<String, List<String[]>> out = new HashMap<>();
        Array ids = c.createArrayOf("uuid", orderIds.stream().map(UUID::fromString).toArray());
        try (PreparedStatement ps = c.prepareStatement("select cast(order_id as text), event || ':'"
                + " || coalesce(request_key, ''), cast(seq as text), to_status from order_transitions"
                + " where order_id = any(?) order by order_id, seq")) {
            ps.setArray(1, ids);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                            .add(new String[] { rs.getString(2), rs.getString(3), rs.getString(4) });
                }
            }
        }
        return out;
    }

    private static Map<String, Long> ordersByCustomer(Connection c, List<String> customers) throws SQLException {
        Map<String, Long> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("select customer_id, count(*) from orders"
                + " where customer_id = any(?) group by customer_id")) {
            ps.setArray(1, c.createArrayOf("text", customers.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        return out;
    }
}
