package io.orderflow.order.domain;

import static io.orderflow.order.domain.OrderEvent.*;
import static io.orderflow.order.domain.OrderStatus.*;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The transition table: the single place that decides which event may move an order from which state,
 * and to where. The JSON and Mermaid views, the 409's {@code allowedEvents} and the exhaustive test are
 * all derived from {@link #TABLE}.
 */
public final class OrderTransitions {

    /** The rules as written. Read them as the lifecycle's specification. */
    private static final List<Rule> DECLARED = List.of(
            rule(PAY, PAYMENT_PENDING, CREATED),
            // the shopper changes payment method: a new attempt replaces the pending one
            rule(PAY, PAYMENT_PENDING, PAYMENT_PENDING).when(Condition.PROVIDER_CHANGES),
            rule(PAYMENT_SUCCEEDED, PAID, CREATED, PAYMENT_PENDING),
            // money captured after a cancel must go back
            rule(PAYMENT_SUCCEEDED, REFUND_PENDING, CANCELLED),
            rule(PAYMENT_FAILED, CREATED, PAYMENT_PENDING),
            rule(SHIP, SHIPPED, PAID),
            rule(DELIVER, DELIVERED, SHIPPED),
            rule(CANCEL, CANCELLED, CREATED, PAYMENT_PENDING),
            rule(CANCEL, REFUND_PENDING, PAID),
            rule(REFUND_SUCCEEDED, REFUNDED, REFUND_PENDING),
            // refunds issued one by one (returns, goodwill) that have given back the whole capture
            rule(REFUND_COMPLETED, REFUNDED, PAID, SHIPPED, DELIVERED));

    /** event → (from → to). */
    private static final Map<OrderEvent, Map<OrderStatus, OrderStatus>> TABLE = table(DECLARED);

    /** event → (from → the condition of the rule that applies). */
    private static final Map<OrderEvent, Map<OrderStatus, Condition>> CONDITIONS = conditions();

    /**
     * One row of the table as published: an event takes any of {@code from} to {@code to}, when {@code when} holds
     * for the order and the event's details.
     */
    public record Rule(OrderEvent event, List<OrderStatus> from, OrderStatus to, Condition when) {

        public Rule(OrderEvent event, List<OrderStatus> from, OrderStatus to) {
            this(event, from, to, Condition.ALWAYS);
        }

        Rule when(Condition condition) {
            return new Rule(event, from, to, condition);
        }
    }

    /** What a rule needs besides the order's status; the database checks the same in the compare-and-set. */
    public enum Condition {
        ALWAYS,
        /** PAY names another provider than the one the order is paying with (a same-provider PAY is a repeat). */
        PROVIDER_CHANGES;

        public boolean holds(Order order, EventDetails details) {
            return this == ALWAYS || details instanceof EventDetails.Pay pay && pay.changesProviderOf(order);
        }
    }

    private OrderTransitions() {
    }

    /** The state {@code event} moves an order in {@code from} to, or empty when the table forbids it. */
    public static Optional<OrderStatus> next(OrderStatus from, OrderEvent event) {
        return Optional.ofNullable(TABLE.get(event).get(from));
    }

    /** Whether some rule takes {@code event} from {@code from} (for some details; see the other overload). */
    public static boolean allows(OrderStatus from, OrderEvent event) {
        return TABLE.get(event).containsKey(from);
    }

    /** Whether the table takes {@code event} with {@code details} from where {@code order} stands. */
    public static boolean allows(Order order, OrderEvent event, EventDetails details) {
        return allows(order.status(), event) && CONDITIONS.get(event).get(order.status()).holds(order, details);
    }

    /** The condition of the rule that takes {@code event} from {@code from}; ALWAYS when there is none. */
    public static Condition condition(OrderStatus from, OrderEvent event) {
        return CONDITIONS.get(event).getOrDefault(from, Condition.ALWAYS);
    }

    /** Events the table accepts in {@code from}, in declaration order. */
    public static Set<OrderEvent> allowedEvents(OrderStatus from) {
        EnumSet<OrderEvent> allowed = EnumSet.noneOf(OrderEvent.class);
        TABLE.forEach((event, moves) -> {
            if (moves.containsKey(from)) {
                allowed.add(event);
            }
        });
        return allowed;
    }

    /** States from which {@code event} is legal. */
    public static Set<OrderStatus> sourcesOf(OrderEvent event) {
        return EnumSet.copyOf(TABLE.get(event).keySet());
    }

    /** The table grouped as it is written: one rule per (event, target). */
    public static List<Rule> rules() {
        List<Rule> rules = new ArrayList<>();
        TABLE.forEach((event, moves) -> {
            Map<OrderStatus, List<OrderStatus>> byTarget = new LinkedHashMap<>();
            moves.forEach((from, to) -> byTarget.computeIfAbsent(to, t -> new ArrayList<>()).add(from));
            byTarget.forEach((to, from) -> {
                Map<Condition, List<OrderStatus>> byCondition = new LinkedHashMap<>();
                from.forEach(f -> byCondition.computeIfAbsent(condition(f, event), c -> new ArrayList<>()).add(f));
                byCondition.forEach((when, sources) -> rules.add(new Rule(event, List.copyOf(sources), to, when)));
            });
        });
        return Collections.unmodifiableList(rules);
    }

    private static Rule rule(OrderEvent event, OrderStatus to, OrderStatus... from) {
        return new Rule(event, List.of(from), to);
    }

    private static Map<OrderEvent, Map<OrderStatus, Condition>> conditions() {
        EnumMap<OrderEvent, Map<OrderStatus, Condition>> conditions = new EnumMap<>(OrderEvent.class);
        for (OrderEvent event : OrderEvent.values()) {
            conditions.put(event, new EnumMap<>(OrderStatus.class));
        }
        for (Rule rule : DECLARED) {
            rule.from().forEach(from -> conditions.get(rule.event()).put(from, rule.when()));
        }
        conditions.replaceAll((event, byStatus) -> Collections.unmodifiableMap(byStatus));
        return Collections.unmodifiableMap(conditions);
    }

    private static Map<OrderEvent, Map<OrderStatus, OrderStatus>> table(List<Rule> rules) {
        EnumMap<OrderEvent, Map<OrderStatus, OrderStatus>> table = new EnumMap<>(OrderEvent.class);
        for (OrderEvent event : OrderEvent.values()) {
            table.put(event, new EnumMap<>(OrderStatus.class));
        }
        for (Rule rule : rules) {
            for (OrderStatus from : rule.from()) {
                OrderStatus previous = table.get(rule.event()).put(from, rule.to());
                if (previous != null) {
                    throw new IllegalStateException("ambiguous rule for " + rule.event() + " from " + from);
                }
            }
        }
        table.replaceAll((event, moves) -> Collections.unmodifiableMap(moves));
        return Collections.unmodifiableMap(table);
    }
}
