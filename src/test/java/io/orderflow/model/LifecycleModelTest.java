package io.orderflow.model;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.order.domain.OrderEvent;
import io.orderflow.support.Auth;
import io.orderflow.support.Callbacks;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Seeded random sequences of API calls, provider callbacks, concurrent duplicates and late retries against the
 * live service, each checked step by step against {@link LifecycleModel}. Sequences of different orders interleave
 * on 16 client threads. On a divergence the failing sequence's seed is printed; rerun just it with
 * {@code ./mvnw test -Dtest=LifecycleModelTest -Dmodel.seed=<seed> -Dmodel.sequences=1}.
 */
@QuarkusTest
class LifecycleModelTest {

    private static final int SEQUENCES = Integer.getInteger("model.sequences", 300);
    private static final long SEED = Long.getLong("model.seed", 20261130L);
    /** What a request may ask for: every event but REFUND_COMPLETED, which the service takes itself (refunds). */
    private static final OrderEvent[] EVENTS = Arrays.stream(OrderEvent.values())
            .filter(event -> event != OrderEvent.REFUND_COMPLETED).toArray(OrderEvent[]::new);

    /** A request as sent, kept so that it can be sent again exactly (same key or event id, same body). */
    private record Sent(OrderEvent event, String txn, Supplier<Response> send, Response first) {
    }

    @Test
    void shouldAgreeWithTheModelOverRandomSequencesOfCallsCallbacksDuplicatesAndRetries() {
        Random master = new Random(SEED);
        long[] seeds = new long[SEQUENCES];
        for (int i = 0; i < SEQUENCES; i++) {
            seeds[i] = SEQUENCES == 1 ? SEED : master.nextLong();
        }
        List<String> divergences = Parallel.run(SEQUENCES, 16, i -> run(seeds[i])).stream()
                .filter(Objects::nonNull).toList();
        assertTrue(divergences.isEmpty(), divergences.size() + " of " + SEQUENCES + " sequences diverged:\n"
                + String.join("\n", divergences.subList(0, Math.min(5, divergences.size()))));
    }

    /** One order's random life; null when the service agreed with the model at every step. */
    private static String run(long seed) {
        Random random = new Random(seed);
        LifecycleModel model = new LifecycleModel();
        String customer = newCustomer();
        String id = createOrder(customer);
        List<Sent> sent = new ArrayList<>();
        List<String> trace = new ArrayList<>();
        int steps = 4 + random.nextInt(8);
        for (int step = 0; step < steps; step++) {
            int dice = random.nextInt(10);
            if (dice < 2 && !sent.isEmpty()) {
                // a late retry of an earlier request: the stored first answer, byte for byte
                Sent earlier = sent.get(random.nextInt(sent.size()));
                Response again = earlier.send().get();
                trace.add("retry " + earlier.event() + " → " + again.statusCode());
                if (again.statusCode() != earlier.first().statusCode()
                        || !again.asString().equals(earlier.first().asString())
                        || !"true".equals(again.header("Idempotent-Replayed"))) {
                    return diverged(seed, trace, "a retry did not replay the first answer " + earlier.first().asString()
                            + " but got " + again.asString());
                }
                continue;
            }
            OrderEvent event = EVENTS[random.nextInt(EVENTS.length)];
            String txn = random.nextInt(4) == 0 ? "txn-" + UUID.randomUUID() : "txn-" + id;
            String details = details(event, random);
            Supplier<Response> send = request(id, customer, event, details, txn, random);
            LifecycleModel.Expected expected = model.apply(event, details, txn);
            List<Response> answers = dice == 9 ? Parallel.run(2, twin -> send.get()) : List.of(send.get());
            for (Response answer : answers) {
                trace.add(event + " → " + answer.statusCode() + " (model " + expected.status() + ")");
                String problem = compare(expected, answer);
                if (problem != null) {
                    return diverged(seed, trace, problem);
                }
            }
            sent.add(new Sent(event, txn, send, answers.get(0)));
        }
        List<OrderEvent> history = Auth.operator().get("/orders/" + id + "/transitions").jsonPath()
                .getList("event", String.class).stream().map(OrderEvent::valueOf).toList();
        if (!history.equals(model.events())) {
            return diverged(seed, trace, "history " + history + " but the model has " + model.events());
        }
        long version = Sql.count("select version from orders where id = ?::uuid", id);
        if (version != history.size()) {
            return diverged(seed, trace, "version " + version);
        }
        var violations = Sql.violations(List.of(id));
        return violations.isEmpty() ? null : diverged(seed, trace, "invariants " + violations);
    }

    private static String compare(LifecycleModel.Expected expected, Response answer) {
        if (answer.statusCode() != expected.status()) {
            return "status " + answer.statusCode() + " " + answer.asString();
        }
        if (expected.status() == 200) {
            if (!expected.orderStatus().name().equals(answer.path("status"))) {
                return "order status " + answer.path("status") + " but the model is at " + expected.orderStatus();
            }
            String outcome = answer.path("outcome");
            if (outcome != null && !outcome.equals(expected.outcome())) {
                return "callback outcome " + outcome + " but the model says " + expected.outcome();
            }
        } else if (expected.problem() != null) {
            String type = answer.path("type");
            if (type == null || !type.endsWith("/" + expected.problem())) {
                return "problem " + type + " but the model says " + expected.problem();
            }
        }
        return null;
    }

    /** What a request asks for besides its event; repeats of SHIP and CANCEL sometimes ask for something else. */
    private static String details(OrderEvent event, Random random) {
        return switch (event) {
            case SHIP -> "DHL/" + (random.nextBoolean() ? "JD1" : "JD2");
            case CANCEL -> new String[] { "model", "changed my mind", null }[random.nextInt(3)];
            default -> null;
        };
    }

    /** The request that asks for {@code event}: a keyed API call by the right role, or a signed callback. */
    private static Supplier<Response> request(String id, String customer, OrderEvent event, String details,
            String txn, Random random) {
        String key = newKey();
        return switch (event) {
            case PAY -> () -> Auth.customer(customer).contentType(ContentType.JSON).header("Idempotency-Key", key)
                    .body(payBody()).post("/orders/" + id + "/pay");
            case SHIP -> () -> Auth.operator().contentType(ContentType.JSON).header("Idempotency-Key", key)
                    .body(Map.of("carrier", details.split("/")[0], "trackingNumber", details.split("/")[1]))
                    .post("/orders/" + id + "/ship");
            case DELIVER -> () -> Auth.operator().contentType(ContentType.JSON).header("Idempotency-Key", key)
                    .body(Map.of()).post("/orders/" + id + "/deliver");
            case CANCEL -> {
                // the customer or an operator; a retry is sent by the same caller (keys are scoped to callers)
                String token = random.nextBoolean() ? Auth.token("customer", customer)
                        : Auth.token("operator", "ops-1");
                yield () -> Auth.bearer(token).contentType(ContentType.JSON)
                        .header("Idempotency-Key", key)
                        .body(details == null ? Map.of() : Map.of("reason", details))
                        .post("/orders/" + id + "/cancel");
            }
            case PAYMENT_SUCCEEDED, PAYMENT_FAILED, REFUND_SUCCEEDED -> {
                String body = Callbacks.event("evt-" + key, event.name(), id, AMOUNT, "EUR", txn);
                yield () -> Callbacks.deliver(body);
            }
            case REFUND_COMPLETED -> throw new IllegalArgumentException("no request asks for " + event);
        };
    }

    private static String diverged(long seed, List<String> trace, String what) {
        return "seed " + seed + ": " + what + "\n    after " + trace;
    }
}
