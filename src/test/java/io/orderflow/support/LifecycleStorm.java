package io.orderflow.support;

import io.orderflow.support.ServiceClient.Answer;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A keyed storm of whole lifecycles: workers walk new orders through create → PAY (mockpay) → the provider's signed
 * PAYMENT_SUCCEEDED → SHIP → DELIVER, each request with its own Idempotency-Key (the capture with its event id).
 * A request that gets no answer, a 5xx or {@code 409 request-in-flight} is sent again with the same key and body,
 * to the next replica each time, until it is answered finally — through a kill and the restart that follows it.
 */
public final class LifecycleStorm {

    private static final Duration REQUEST_BOUND = Duration.ofSeconds(120);
    private static final int MAX_ATTEMPTS = 1000;

    private final List<ServiceClient> replicas;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicInteger chains = new AtomicInteger();
    private final AtomicInteger acknowledged = new AtomicInteger();
    private final List<String> unexpected = new CopyOnWriteArrayList<>();
    private Workers workers;

    public LifecycleStorm(List<ServiceClient> replicas) {
        this.replicas = List.copyOf(replicas);
    }

    public LifecycleStorm start(int workerCount) {
        running.set(true);
        workers = Workers.start("lifecycles", workerCount, this::work);
        return this;
    }

    /** Stops starting lifecycles; each worker finishes the one it walks (bounded) and ends. */
    public void stop() {
        running.set(false);
        workers.join(REQUEST_BOUND.multipliedBy(6));
    }

    /** Requests answered finally with a 2xx so far. */
    public int acknowledged() {
        return acknowledged.get();
    }

    /** Lifecycles started. */
    public int lifecycles() {
        return chains.get();
    }

    /** Final answers other than the one each step expects, with their request. */
    public List<String> unexpected() {
        return List.copyOf(unexpected);
    }

    private void work() {
        while (running.get()) {
            walk(chains.getAndIncrement());
        }
    }

    private void walk(int index) {
        String customer = ServiceClient.newCustomer();
        Answer created = untilFinal(index, "create", 201, c -> c.createOrder(customer, key()));
        if (created == null) {
            return;
        }
        String id = created.field("id");
        String capture = ServiceClient.providerEvent("evt-" + UUID.randomUUID(), "PAYMENT_SUCCEEDED", id, "txn-" + id);
        String pay = key();
        String ship = key();
        String deliver = key();
        if (untilFinal(index, "pay " + id, 200, c -> c.transition(id, "pay", customer, pay, ServiceClient.PAY_BODY))
                == null || untilFinal(index, "capture " + id, 200, c -> c.callback(capture)) == null
                || untilFinal(index, "ship " + id, 200,
                        c -> c.transition(id, "ship", customer, ship, ServiceClient.SHIP_BODY)) == null) {
            return;
        }
        untilFinal(index, "deliver " + id, 200,
                c -> c.transition(id, "deliver", customer, deliver, ServiceClient.DELIVER_BODY));
    }

    /** The final answer when it has the expected status, else null (recorded as unexpected). */
    private Answer untilFinal(int index, String what, int expected, Function<ServiceClient, Answer> send) {
        AtomicInteger attempt = new AtomicInteger(index);
        Answer answer = ServiceClient.untilFinal(
                () -> send.apply(replicas.get(Math.floorMod(attempt.getAndIncrement(), replicas.size()))),
                MAX_ATTEMPTS, REQUEST_BOUND);
        if (answer.status() != expected) {
            unexpected.add(what + ": " + answer);
            return null;
        }
        acknowledged.incrementAndGet();
        return answer;
    }

    private static String key() {
        return UUID.randomUUID().toString();
    }
}
