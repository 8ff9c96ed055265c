package io.orderflow.support;

import io.orderflow.order.domain.OrderEvent;
import io.orderflow.support.ServiceClient.Answer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * A steady stream of order lifecycles against one service instance, from a few worker threads: each worker walks
 * new orders through create (keyed) → pay (keyed) → the provider's signed PAYMENT_SUCCEEDED (event id) → ship
 * (keyed) → deliver (without a key, so only the state machine's CAS protects its retry), one request at a time.
 *
 * <p>Like a load balancer, a worker sends nothing more while {@code inRotation} says the instance is out of
 * rotation. A request that gets no answer or a 5xx is left pending on its chain (the worker stops: its instance is
 * going away) so that it can be {@linkplain #retryPending retried} later with the same key, event id and body.
 */
public final class TransitionStream {

    /** The lifecycle steps, in order; CREATE has no event (the order is created, not moved). */
    public enum Step {
        CREATE(null), PAY(OrderEvent.PAY), CAPTURE(OrderEvent.PAYMENT_SUCCEEDED), SHIP(OrderEvent.SHIP),
        DELIVER(OrderEvent.DELIVER);

        public final OrderEvent event;

        Step(OrderEvent event) {
            this.event = event;
        }
    }

    /** One order's walk: its keys, what was acknowledged and what is pending after no answer / a 5xx. */
    public static final class Chain {
        public final String customer = ServiceClient.newCustomer();
        final String createKey = UUID.randomUUID().toString();
        final String payKey = UUID.randomUUID().toString();
        final String eventId = "evt-" + UUID.randomUUID();
        final String shipKey = UUID.randomUUID().toString();
        volatile String orderId;
        volatile String captureBody;
        /** Steps acknowledged with a 2xx, by the first attempt or by a retry. */
        public final List<Step> done = new CopyOnWriteArrayList<>();
        public volatile Step pending;
        public volatile Answer pendingAnswer;
        public volatile Answer retryAnswer;
        public volatile String unexpected;

        public String orderId() {
            return orderId;
        }

        /** The history this chain must have produced, as "EVENT:request_key" (no key: "EVENT:"), oldest first. */
        public List<String> expectedHistory() {
            return done.stream().filter(s -> s != Step.CREATE).map(s -> s.event + ":" + requestKey(s))
                    .collect(Collectors.toList());
        }

        String requestKey(Step step) {
            return switch (step) {
                case PAY -> payKey;
                case CAPTURE -> eventId;
                case SHIP -> shipKey;
                default -> "";
            };
        }

        @Override
        public String toString() {
            return "chain " + customer + " order " + orderId + " done " + done + (pending == null ? ""
                    : " pending " + pending + " (" + pendingAnswer + ", retry: " + retryAnswer + ")")
                    + (unexpected == null ? "" : " UNEXPECTED " + unexpected);
        }
    }

    private final ServiceClient client;
    private final BooleanSupplier inRotation;
    private final AtomicBoolean running = new AtomicBoolean();
    private final List<Chain> chains = new CopyOnWriteArrayList<>();
    private final List<InvariantChecker.Ack> acks = new CopyOnWriteArrayList<>();
    private Workers workers;
    private final int maxChainsPerWorker;

    public TransitionStream(ServiceClient client, BooleanSupplier inRotation, int maxChainsPerWorker) {
        this.client = client;
        this.inRotation = inRotation;
        this.maxChainsPerWorker = maxChainsPerWorker;
    }

    public TransitionStream start(int workerCount) {
        running.set(true);
        workers = Workers.start("stream", workerCount, this::work);
        return this;
    }

    /** Stops sending and waits (bounded) for the workers' last requests. */
    public void stop() {
        running.set(false);
        if (workers != null) {
            workers.join(Duration.ofSeconds(90));
        }
    }

    /** 2xx answers so far. */
    public int acknowledged() {
        return acks.size();
    }

    public List<InvariantChecker.Ack> acks() {
        return List.copyOf(acks);
    }

    public List<Chain> chains() {
        return List.copyOf(chains);
    }

    public List<Chain> pending() {
        return chains.stream().filter(c -> c.pending != null).toList();
    }

    /**
     * Re-sends every pending request to {@code to} with the same key, event id and body, as a client that did not
     * get an answer does, until it is answered finally (in-flight and 5xx answers are retried, bounded).
     */
    public void retryPending(ServiceClient to) {
        Concurrently.map(pending(), 8, chain -> {
            Answer answer = ServiceClient.untilFinal(() -> send(to, chain, chain.pending), 60, Duration.ofSeconds(90));
            chain.retryAnswer = answer;
            if (answer.is2xx()) {
                if (chain.pending == Step.CREATE) {
                    chain.orderId = answer.field("id");
                }
                chain.done.add(chain.pending);
            } else {
                chain.unexpected = "retry of " + chain.pending + " answered " + answer;
            }
            return answer;
        });
    }

    private void work() {
        for (int n = 0; n < maxChainsPerWorker && running.get() && inRotation.getAsBoolean(); n++) {
            Chain chain = new Chain();
            chains.add(chain);
            for (Step step : Step.values()) {
                if (!running.get() || !inRotation.getAsBoolean()) {
                    return;
                }
                Answer answer = send(client, chain, step);
                if (answer.is2xx()) {
                    if (step == Step.CREATE) {
                        chain.orderId = answer.field("id");
                    }
                    chain.done.add(step);
                    acks.add(new InvariantChecker.Ack(UUID.fromString(chain.orderId), step.event));
                } else if (answer.mustRetry()) {
                    chain.pending = step;
                    chain.pendingAnswer = answer;
                    return;
                } else {
                    chain.unexpected = step + " answered " + answer;
                    break;
                }
            }
        }
    }

    private static Answer send(ServiceClient to, Chain chain, Step step) {
        return switch (step) {
            case CREATE -> to.createOrder(chain.customer, chain.createKey);
            case PAY -> to.transition(chain.orderId, "pay", chain.customer, chain.payKey, ServiceClient.PAY_BODY);
            case CAPTURE -> to.callback(captureBody(chain));
            case SHIP -> to.transition(chain.orderId, "ship", chain.customer, chain.shipKey, ServiceClient.SHIP_BODY);
            case DELIVER -> to.transition(chain.orderId, "deliver", chain.customer, null, ServiceClient.DELIVER_BODY);
        };
    }

    /** Fixed once per chain: a provider re-sends the same bytes (only the signature's timestamp is new). */
    private static String captureBody(Chain chain) {
        if (chain.captureBody == null) {
            chain.captureBody = ServiceClient.providerEvent(chain.eventId, "PAYMENT_SUCCEEDED", chain.orderId,
                    "txn-" + chain.orderId);
        }
        return chain.captureBody;
    }
}
