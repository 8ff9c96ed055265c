package io.orderflow.support;

import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.order.domain.OrderTransitions;
import java.io.PrintStream;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks what the service promises about its rows, over JDBC, for any orderflow database: all orders, or only the
 * orders a test touched. Returns the violations found (empty means consistent); never changes anything.
 *
 * <p>Run it against any database:
 *
 * <pre>
 * ./mvnw -q test-compile exec:java -Dexec.classpathScope=test \
 *   -Dexec.mainClass=io.orderflow.support.InvariantChecker \
 *   -Dexec.args="jdbc:postgresql://127.0.0.1/orderflow postgres ''"
 * </pre>
 *
 * (prints the violations, exits 1 when there are any). What is checked:
 * <ul>
 * <li>each order's history is a path through {@link OrderTransitions} from CREATED, its last state is the order's
 * status; its seqs and the versions its succeeded refunds gave it ({@code refunds.order_version}) run 1..n, each once,
 * and the order's version is n;</li>
 * <li>nothing applied twice: per order, one history row per (request key, event); per provider, one row per event
 * id across all orders; PAYMENT_SUCCEEDED at most once per order (the table allows no second capture);</li>
 * <li>PAID, SHIPPED and DELIVERED orders have exactly one applied PAYMENT_SUCCEEDED (and its txn id and time);
 * a cancelled order whose payment was captured is REFUND_PENDING or REFUNDED, never CANCELLED;</li>
 * <li>every dedup record of a success (a stored 2xx that is not itself a replay or duplicate) naming an order has
 * its effect: the order exists, and for a transition or provider event a history row with that key; a record of
 * a duplicate or of a business failure (409, 422) may name its order without an effect of its own;</li>
 * <li>every keyed effect has its dedup record: each order its create record, each history row with a request key
 * its record (only for rows younger than the purge horizon, default 14 days = the shortest retention 7 d + the
 * purge grace 7 d: older records may have been purged legitimately);</li>
 * <li>payments ({@code checkPayments}): attempts, captures, refunds owed, refund commands and the refunds providers
 * reported;</li>
 * <li>{@link #checkAcknowledged}: every (order, event) a client saw acknowledged with a 2xx is stored.</li>
 * </ul>
 * The idempotency scopes are read as the service writes them: {@code <caller> <METHOD> <route> <order id or empty>}.
 */
public final class InvariantChecker {

    public static final String HISTORY_PATH = "history-is-a-path-of-the-table";
    public static final String STATUS = "status-is-the-last-history-state";
    public static final String VERSION = "version-is-the-history-length";
    public static final String KEY_ONCE = "request-key-applied-once";
    public static final String PROVIDER_EVENT_ONCE = "provider-event-applied-once";
    public static final String CAPTURE_ONCE = "payment-captured-at-most-once";
    public static final String PAID_HAS_CAPTURE = "paid-order-has-exactly-one-capture";
    public static final String CANCELLED_CAPTURE_REFUNDS = "cancelled-capture-is-refunded";
    public static final String RECORD_HAS_EFFECT = "dedup-record-has-its-effect";
    public static final String EFFECT_HAS_RECORD = "keyed-effect-has-its-dedup-record";
    public static final String ACKNOWLEDGED = "acknowledged-write-is-stored";
    public static final String CURRENT_ATTEMPT = "current-attempt-is-one-of-the-orders";
    public static final String CAPTURE_OF_ITS_ORDER = "capture-belongs-to-an-attempt-of-its-order";
    public static final String SECOND_CAPTURE_RECORDED = "second-capture-has-its-anomaly";
    public static final String CAPTURE_HAS_ATTEMPT = "capture-has-an-attempt";
    public static final String OWED_REFUND_HAS_COMMAND = "owed-refund-has-its-command";
    public static final String COMMAND_REFUNDS_A_CAPTURE = "refund-command-names-a-capture-of-its-order";
    public static final String ONE_REFUND_PER_COMMAND = "one-provider-refund-per-command";
    public static final String REFUNDED_ORDER_CAPTURE_REFUNDED = "refunded-order-has-its-capture-refunded";
    public static final String REFUNDS_WITHIN_CAPTURE = "refunds-within-capture";
    public static final String REFUND_HAS_ONE_COMMAND = "refund-has-one-command";

    /** One broken promise: which rule, which order (null for rows that name none) and what was found. */
    public record Violation(String rule, UUID orderId, String detail) {
        @Override
        public String toString() {
            return rule + (orderId == null ? "" : " [" + orderId + "]") + ": " + detail;
        }
    }

    /** A write a client saw acknowledged with a 2xx: the order's creation ({@code event} null) or an event on it. */
    public record Ack(UUID orderId, OrderEvent event) {
        public static Ack created(UUID orderId) {
            return new Ack(orderId, null);
        }

        @Override
        public String toString() {
            return (event == null ? "CREATED" : event.name()) + " of " + orderId;
        }
    }

    /** The violations and how many orders were looked at. */
    public record Report(int ordersChecked, List<Violation> violations) {
    }

    private static final Set<OrderStatus> CAPTURED = EnumSet.of(OrderStatus.PAID, OrderStatus.SHIPPED,
            OrderStatus.DELIVERED);
    private static final boolean CAPTURE_CAN_REPEAT = captureCanRepeat();
    private static final Pattern SCOPE = Pattern.compile("^(\\S+) (POST|PUT|PATCH|DELETE) (/\\S*) ?(.*)$");
    private static final Pattern TRANSITION_ROUTE = Pattern.compile("^/orders/\\{id}/(\\w+)$");

    private final String url;
    private final String user;
    private final String password;
    private final Duration purgeHorizon;

    public InvariantChecker(String url, String user, String password) {
        this(url, user, password, Duration.ofDays(14));
    }

    public InvariantChecker(String url, String user, String password, Duration purgeHorizon) {
        this.url = url;
        this.user = user;
        this.password = password == null ? "" : password;
        this.purgeHorizon = purgeHorizon;
    }

    /** The database this checker reads. */
    public String url() {
        return url;
    }

    /** Every order in the database. */
    public List<Violation> check() {
        return report(null).violations();
    }

    /** Only these orders (and the rows that name them). */
    public List<Violation> check(Collection<UUID> orderIds) {
        return report(orderIds).violations();
    }

    /** @param orderIds the orders to check, or null for all */
    public Report report(Collection<UUID> orderIds) {
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            // one snapshot for every query, so a running service cannot make the checks disagree with each other
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setReadOnly(true);
            c.setAutoCommit(false);
            Scope scope = new Scope(c, orderIds);
            List<Violation> violations = new ArrayList<>();
            Map<UUID, OrderRow> orders = loadOrders(scope);
            Map<UUID, List<HistoryRow>> history = loadHistory(scope);
            Map<UUID, List<Long>> refundVersions = loadRefundVersions(scope);
            for (OrderRow order : orders.values()) {
                checkOrder(order, history.getOrDefault(order.id, List.of()),
                        refundVersions.getOrDefault(order.id, List.of()), violations);
            }
            checkProviderEventsOnce(scope, violations);
            checkRecordsHaveEffects(scope, history, violations);
            checkEffectsHaveRecords(scope, violations);
            checkPayments(scope, violations);
            c.rollback();
            return new Report(orders.size(), List.copyOf(violations));
        } catch (SQLException e) {
            throw new IllegalStateException("invariant check on " + url + " failed: " + e.getMessage(), e);
        }
    }

    /** Every acknowledged write is in the database: the order exists and, for an event, its history has it. */
    public List<Violation> checkAcknowledged(Collection<Ack> acks) {
        Set<UUID> ids = new HashSet<>();
        acks.forEach(a -> ids.add(a.orderId()));
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            Scope scope = new Scope(c, ids);
            Map<UUID, OrderRow> orders = loadOrders(scope);
            Map<UUID, List<HistoryRow>> history = loadHistory(scope);
            List<Violation> violations = new ArrayList<>();
            for (Ack ack : acks) {
                if (!orders.containsKey(ack.orderId())) {
                    violations.add(new Violation(ACKNOWLEDGED, ack.orderId(), ack + " was acknowledged, the order"
                            + " does not exist"));
                } else if (ack.event() != null && history.getOrDefault(ack.orderId(), List.of()).stream()
                        .noneMatch(h -> h.event.equals(ack.event().name()))) {
                    violations.add(new Violation(ACKNOWLEDGED, ack.orderId(), ack + " was acknowledged, the history"
                            + " has no " + ack.event()));
                }
            }
            return violations;
        } catch (SQLException e) {
            throw new IllegalStateException("acknowledgement check on " + url + " failed: " + e.getMessage(), e);
        }
    }

    // ----------------------------------------------------------------------------------------------------------

    private record OrderRow(UUID id, String status, long version, boolean paid, String txnId) {
    }

    private record HistoryRow(UUID orderId, int seq, String event, String from, String to, String source,
            String requestKey) {
    }

    /** The optional restriction to a set of orders, as a SQL condition on a uuid column plus its parameter. */
    private static final class Scope {
        final Connection c;
        final Array ids;

        Scope(Connection c, Collection<UUID> orderIds) throws SQLException {
            this.c = c;
            this.ids = orderIds == null ? null : c.createArrayOf("uuid", orderIds.toArray());
        }

        String on(String column) {
            return ids == null ? "true" : column + " = any(?)";
        }

        PreparedStatement prepare(String sql, int restrictions) throws SQLException {
            PreparedStatement ps = c.prepareStatement(sql);
            if (ids != null) {
                for (int i = 1; i <= restrictions; i++) {
                    ps.setArray(i, ids);
                }
            }
            return ps;
        }
    }

    private static Map<UUID, OrderRow> loadOrders(Scope scope) throws SQLException {
        Map<UUID, OrderRow> orders = new LinkedHashMap<>();
        try (PreparedStatement ps = scope.prepare("select id, status, version, paid_at is not null as paid,"
                + " payment_txn_id from orders where " + scope.on("id") + " order by id", 1);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                UUID id = (UUID) rs.getObject("id");
                orders.put(id, new OrderRow(id, rs.getString("status"), rs.getLong("version"), rs.getBoolean("paid"),
                        rs.getString("payment_txn_id")));
            }
        }
        return orders;
    }

    private static Map<UUID, List<HistoryRow>> loadHistory(Scope scope) throws SQLException {
        Map<UUID, List<HistoryRow>> history = new HashMap<>();
        try (PreparedStatement ps = scope.prepare("select order_id, seq, event, from_status, to_status, source,"
                + " request_key from order_transitions where " + scope.on("order_id") + " order by order_id, seq", 1);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                HistoryRow row = new HistoryRow((UUID) rs.getObject("order_id"), rs.getInt("seq"),
                        rs.getString("event"), rs.getString("from_status"), rs.getString("to_status"),
                        rs.getString("source"), rs.getString("request_key"));
                history.computeIfAbsent(row.orderId, k -> new ArrayList<>()).add(row);
            }
        }
        return history;
    }

    /** The versions refunds that succeeded gave their orders (the refund's settle raises it: V41). */
    private static Map<UUID, List<Long>> loadRefundVersions(Scope scope) throws SQLException {
        Map<UUID, List<Long>> versions = new HashMap<>();
        try (PreparedStatement ps = scope.prepare("select order_id, order_version from refunds where"
                + " order_version is not null and " + scope.on("order_id"), 1); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                versions.computeIfAbsent((UUID) rs.getObject(1), k -> new ArrayList<>()).add(rs.getLong(2));
            }
        }
        return versions;
    }

    private static void checkOrder(OrderRow order, List<HistoryRow> rows, List<Long> refundVersions,
            List<Violation> out) {
        String state = OrderStatus.CREATED.name();
        int captures = 0;
        boolean cancelled = false;
        Map<String, Integer> keyed = new HashMap<>();
        List<Long> versions = new ArrayList<>(refundVersions);
        rows.forEach(h -> versions.add((long) h.seq));
        versions.sort(null);
        for (int i = 0; i < versions.size(); i++) {
            if (versions.get(i) != i + 1) {
                out.add(new Violation(HISTORY_PATH, order.id, "versions " + versions + " (the history's seq and the"
                        + " refunds' order_version must run 1.." + versions.size() + " without gaps, each once)"));
                break;
            }
        }
        for (int i = 0; i < rows.size(); i++) {
            HistoryRow h = rows.get(i);
            if (!h.from.equals(state)) {
                out.add(new Violation(HISTORY_PATH, order.id, "seq " + h.seq + " starts from " + h.from
                        + " but the order was " + state));
            }
            Optional<OrderStatus> legal = next(h.from, h.event);
            if (legal.isEmpty() || !legal.get().name().equals(h.to)) {
                out.add(new Violation(HISTORY_PATH, order.id, "seq " + h.seq + ": " + h.event + " " + h.from + " -> "
                        + h.to + " is not in the table (it allows " + legal.map(Enum::name).orElse("nothing") + ")"));
            }
            state = h.to;
            captures += h.event.equals(OrderEvent.PAYMENT_SUCCEEDED.name()) ? 1 : 0;
            cancelled |= h.event.equals(OrderEvent.CANCEL.name());
            if (h.requestKey != null && h.source.equals("api")) {
                String k = h.requestKey + " " + h.event;
                if (keyed.merge(k, 1, Integer::sum) == 2) {
                    out.add(new Violation(KEY_ONCE, order.id, h.event + " with Idempotency-Key " + h.requestKey
                            + " was applied more than once"));
                }
            }
        }
        if (!state.equals(order.status)) {
            out.add(new Violation(STATUS, order.id, "status is " + order.status + ", the history ends in " + state));
        }
        if (order.version != versions.size()) {
            out.add(new Violation(VERSION, order.id, "version is " + order.version + ", the history has "
                    + rows.size() + " rows and " + refundVersions.size() + " refunds raised it"));
        }
        if (captures > 1 && !CAPTURE_CAN_REPEAT) {
            out.add(new Violation(CAPTURE_ONCE, order.id, "PAYMENT_SUCCEEDED applied " + captures + " times"));
        }
        if (isCaptured(order.status) && (captures != 1 || !order.paid || order.txnId == null)) {
            out.add(new Violation(PAID_HAS_CAPTURE, order.id, order.status + " with " + captures
                    + " applied PAYMENT_SUCCEEDED, paid_at " + (order.paid ? "set" : "null") + ", payment_txn_id "
                    + order.txnId));
        }
        boolean moneyTaken = order.paid || captures > 0;
        if (moneyTaken && (cancelled || order.status.equals(OrderStatus.CANCELLED.name()))
                && !order.status.equals(OrderStatus.REFUND_PENDING.name())
                && !order.status.equals(OrderStatus.REFUNDED.name())) {
            out.add(new Violation(CANCELLED_CAPTURE_REFUNDS, order.id, "cancelled with a captured payment but "
                    + order.status + " (must be REFUND_PENDING or REFUNDED)"));
        }
    }

    /**
     * Attempts, captures and refunds: the order's current attempt is one of its own; every capture of a real
     * provider has an attempt; a capture's attempt is one of the capture's order; a capture that did not pay the order (a second capture) has its double-capture
     * anomaly; every refund owed — a second capture's, or a cancelled order's own capture — has its one durable
     * refund command (the unique constraint makes it at most one), and every refund command names a capture of its
     * order (nothing is refunded that was not captured); no command was refunded twice at its provider (two
     * provider refund ids recorded for one command); a REFUNDED order's own capture (its payment_txn_id) is
     * recorded REFUNDED.
     */
    private static void checkPayments(Scope scope, List<Violation> out) throws SQLException {
        query(scope, "select o.id, o.payment_attempt_id from orders o left join payment_attempts a"
                + " on a.id = o.payment_attempt_id and a.order_id = o.id where o.payment_attempt_id is not null"
                + " and a.id is null and " + scope.on("o.id"), rs -> out.add(new Violation(CURRENT_ATTEMPT,
                        (UUID) rs.getObject(1), "current attempt " + rs.getObject(2) + " is not one of its attempts")));
        query(scope, "select c.order_id, c.txn_id, c.attempt_id from payment_captures c join payment_attempts a"
                + " on a.id = c.attempt_id where a.order_id <> c.order_id and " + scope.on("c.order_id"),
                rs -> out.add(new Violation(CAPTURE_OF_ITS_ORDER, (UUID) rs.getObject(1), "capture "
                        + rs.getString(2) + " names attempt " + rs.getObject(3) + " of another order")));
        query(scope, "select c.order_id, c.txn_id from payment_captures c join orders o on o.id = c.order_id"
                + " where c.txn_id is distinct from o.payment_txn_id and not exists (select 1 from payment_anomalies"
                + " n where n.order_id = c.order_id and n.provider_txn_id = c.txn_id and n.kind = 'double-capture')"
                + " and " + scope.on("c.order_id"), rs -> out.add(new Violation(SECOND_CAPTURE_RECORDED,
                        (UUID) rs.getObject(1), "capture " + rs.getString(2) + " did not pay the order and has no"
                                + " double-capture anomaly")));
        // mockpay keeps its old format, where a success may pay an order that never started an attempt (dev and
        // tests only); Stripe and WeChat Pay events are matched to an attempt by its reference or ignored
        query(scope, "select c.order_id, c.txn_id from payment_captures c where c.attempt_id is null"
                + " and c.provider <> 'mockpay' and "
                + scope.on("c.order_id"), rs -> out.add(new Violation(CAPTURE_HAS_ATTEMPT, (UUID) rs.getObject(1),
                        "capture " + rs.getString(2) + " belongs to no payment attempt")));
        query(scope, "select c.order_id, c.txn_id from payment_captures c where c.state = 'REFUND_OWED' and not"
                + " exists (select 1 from provider_commands p where p.kind = 'REFUND' and p.provider = c.provider"
                + " and p.capture_txn_id = c.txn_id) and " + scope.on("c.order_id"),
                rs -> out.add(new Violation(OWED_REFUND_HAS_COMMAND, (UUID) rs.getObject(1), "capture "
                        + rs.getString(2) + " is owed a refund that no command will send")));
        query(scope, "select o.id, o.payment_txn_id from orders o where o.status = 'REFUND_PENDING' and"
                + " o.payment_txn_id is not null and not exists (select 1 from provider_commands p where"
                + " p.kind = 'REFUND' and p.order_id = o.id and p.capture_txn_id = o.payment_txn_id) and "
                + scope.on("o.id"), rs -> out.add(new Violation(OWED_REFUND_HAS_COMMAND, (UUID) rs.getObject(1),
                        "REFUND_PENDING, but no command refunds its capture " + rs.getString(2))));
        query(scope, "select p.order_id, p.id, p.capture_txn_id from provider_commands p where p.kind = 'REFUND'"
                + " and not exists (select 1 from payment_captures c where c.provider = p.provider and c.txn_id ="
                + " p.capture_txn_id and c.order_id = p.order_id) and " + scope.on("p.order_id"),
                rs -> out.add(new Violation(COMMAND_REFUNDS_A_CAPTURE, (UUID) rs.getObject(1), "refund command "
                        + rs.getObject(2) + " names " + rs.getString(3) + ", no capture of this order")));
        query(scope, "select p.order_id, p.id, string_agg(r.refund_id, ', ' order by r.refund_id) from"
                + " provider_commands p join provider_refunds r on r.command_id = p.id where " + scope.on("p.order_id")
                + " group by p.order_id, p.id having count(*) > 1", rs -> out.add(new Violation(ONE_REFUND_PER_COMMAND,
                        (UUID) rs.getObject(1), "refund command " + rs.getObject(2) + " was refunded more than once"
                                + " at its provider: " + rs.getString(3))));
        // refunds (issue 33): what succeeded never exceeds the capture, the capture's hold is its refunds PENDING or
        // SUCCEEDED, and each refund is sent as exactly one provider command (its own id; one provider refund per
        // command is checked above)
        query(scope, "select k.order_id, k.txn_id, k.amount, k.refund_held, coalesce(sum(f.amount) filter (where"
                + " f.status = 'SUCCEEDED'), 0), coalesce(sum(f.amount) filter (where f.status <> 'FAILED'), 0)"
                + " from payment_captures k join refunds f on f.provider = k.provider and f.capture_txn_id = k.txn_id"
                + " where " + scope.on("k.order_id") + " group by k.order_id, k.txn_id, k.amount, k.refund_held"
                + " having coalesce(sum(f.amount) filter (where f.status = 'SUCCEEDED'), 0) > k.amount"
                + " or coalesce(sum(f.amount) filter (where f.status <> 'FAILED'), 0) <> k.refund_held",
                rs -> out.add(new Violation(REFUNDS_WITHIN_CAPTURE, (UUID) rs.getObject(1), "capture "
                        + rs.getString(2) + " of " + rs.getLong(3) + " holds " + rs.getLong(4) + " for refunds; "
                        + rs.getLong(5) + " succeeded, " + rs.getLong(6) + " pending or succeeded")));
        query(scope, "select f.order_id, f.id, count(p.id) from refunds f left join provider_commands p"
                + " on p.id = f.id and p.order_id = f.order_id and p.amount = f.amount where " + scope.on("f.order_id")
                + " group by f.order_id, f.id having count(p.id) <> 1", rs -> out.add(new Violation(
                        REFUND_HAS_ONE_COMMAND, (UUID) rs.getObject(1), "refund " + rs.getObject(2) + " has "
                                + rs.getLong(3) + " provider commands")));
        query(scope, "select o.id, o.payment_txn_id, c.state from orders o left join payment_captures c"
                + " on c.order_id = o.id and c.txn_id = o.payment_txn_id where o.status = 'REFUNDED'"
                + " and c.state is distinct from 'REFUNDED' and " + scope.on("o.id"),
                rs -> out.add(new Violation(REFUNDED_ORDER_CAPTURE_REFUNDED, (UUID) rs.getObject(1), "REFUNDED, but"
                        + " its capture " + rs.getString(2) + " is " + (rs.getString(3) == null ? "not recorded"
                                : rs.getString(3)))));
    }

    private interface RowHandler {
        void handle(ResultSet rs) throws SQLException;
    }

    private static void query(Scope scope, String sql, RowHandler handler) throws SQLException {
        try (PreparedStatement ps = scope.prepare(sql, 1); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                handler.handle(rs);
            }
        }
    }

    private static void checkProviderEventsOnce(Scope scope, List<Violation> out) throws SQLException {
        String restricted = scope.ids == null ? "" : " and (source, request_key) in (select source, request_key from"
                + " order_transitions where order_id = any(?))";
        try (PreparedStatement ps = scope.prepare("select source, request_key, count(*) as n,"
                + " array_agg(order_id::text || '#' || seq order by order_id, seq) as rows from order_transitions"
                + " where source <> 'api' and request_key is not null" + restricted
                + " group by source, request_key having count(*) > 1", 1);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String first = ((String[]) rs.getArray("rows").getArray())[0];
                out.add(new Violation(PROVIDER_EVENT_ONCE, UUID.fromString(first.substring(0, first.indexOf('#'))),
                        rs.getString("source") + " event " + rs.getString("request_key") + " applied "
                                + rs.getLong("n") + " times: " + String.join(", ",
                                        (String[]) rs.getArray("rows").getArray())));
            }
        }
    }

    private static void checkRecordsHaveEffects(Scope scope, Map<UUID, List<HistoryRow>> history,
            List<Violation> out) throws SQLException {
        try (PreparedStatement ps = scope.prepare("select k.scope, k.idem_key, k.state, k.order_id,"
                + " cast(k.result as text) as result, o.id is not null as order_exists,"
                + " coalesce(k.reply -> 'h' ->> 'Idempotent-Replayed', '') = 'true' as replayed,"
                // a double capture's effect is its capture row, anomaly and command (checked with the payments), not
                // a history row
                + " coalesce(k.reply -> 'h' ->> 'Payment-Outcome', 'applied') not in ('applied', 'duplicate')"
                + " as decided_without_effect"
                + " from idempotency_keys k left join orders o on o.id = k.order_id"
                + " where k.order_id is not null and (k.result is not null"
                + " or (k.reply ->> 's')::int between 200 and 299)"
                + " and k.state in ('DONE', 'EXPIRED') and " + scope.on("k.order_id"), 1);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                UUID orderId = (UUID) rs.getObject("order_id");
                String keyScope = rs.getString("scope");
                String key = rs.getString("idem_key");
                String what = "dedup record (" + keyScope.trim() + ", " + key + ", " + rs.getString("state") + ")";
                if (!rs.getBoolean("order_exists")) { // a created order is never deleted
                    out.add(new Violation(RECORD_HAS_EFFECT, orderId, what + " names an order that does not exist"));
                    continue;
                }
                if (rs.getBoolean("replayed")) {
                    continue; // a duplicate's stored answer: its effect is an earlier request's
                }
                if (rs.getBoolean("decided_without_effect")) {
                    continue; // a provider event acknowledged as refused (illegal, stale attempt...): no effect by design
                }
                Matcher m = SCOPE.matcher(keyScope);
                if (!m.matches()) {
                    continue; // not a scope the service writes: only the order's existence is checked
                }
                String caller = m.group(1);
                String route = m.group(3);
                Matcher transition = TRANSITION_ROUTE.matcher(route);
                List<HistoryRow> rows = history.getOrDefault(orderId, List.of());
                if (route.equals("/orders/{id}/refunds")) {
                    // a refund moves no order: its effect is the refund its statement wrote with the record
                    if (!refundRecorded(scope, orderId, rs.getString("result"))) {
                        out.add(new Violation(RECORD_HAS_EFFECT, orderId, what + " but no refund it recorded"));
                    }
                } else if (transition.matches()) {
                    String event = transition.group(1).toUpperCase();
                    if (rows.stream().noneMatch(h -> key.equals(h.requestKey) && h.event.equals(event)
                            && h.source.equals("api"))) {
                        out.add(new Violation(RECORD_HAS_EFFECT, orderId, what + " but no " + event
                                + " with that key in the history"));
                    }
                } else if (route.equals("/payments/{provider}/callbacks") && caller.startsWith("provider:")) {
                    String provider = caller.substring("provider:".length());
                    if (rows.stream().noneMatch(h -> key.equals(h.requestKey) && h.source.equals(provider))) {
                        out.add(new Violation(RECORD_HAS_EFFECT, orderId, what + " but no " + provider
                                + " event with that id in the history"));
                    }
                }
            }
        }
    }

    /** The refund a POST /orders/{id}/refunds record kept ({@code {id, refund}}) is in {@code refunds}. */
    private static boolean refundRecorded(Scope scope, UUID orderId, String result) throws SQLException {
        try (PreparedStatement ps = scope.prepare("select count(*) from refunds where order_id = ? and"
                + " cast(id as text) = cast(?::jsonb -> 'refund' ->> 'id' as text)", 0)) {
            ps.setObject(1, orderId);
            ps.setString(2, result);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) == 1;
            }
        }
    }

    private void checkEffectsHaveRecords(Scope scope, List<Violation> out) throws SQLException {
        String horizon = "now() - make_interval(secs => " + purgeHorizon.toSeconds() + ")";
        try (PreparedStatement ps = scope.prepare("select t.order_id, t.seq, t.event, t.source, t.request_key"
                + " from order_transitions t where t.request_key is not null and t.at > " + horizon
                + " and " + scope.on("t.order_id") + " and not exists (select 1 from idempotency_keys k"
                + " where k.idem_key = t.request_key and k.order_id = t.order_id and ("
                + "   (t.source = 'api' and k.scope like '% POST /orders/{id}/' || lower(t.event) || ' '"
                + "      || t.order_id::text)"
                + "   or (t.source <> 'api' and k.scope like 'provider:' || t.source || ' %')))"
                + " order by t.order_id, t.seq", 1);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Violation(EFFECT_HAS_RECORD, (UUID) rs.getObject("order_id"), "seq " + rs.getInt("seq")
                        + " " + rs.getString("event") + " from " + rs.getString("source") + " with key "
                        + rs.getString("request_key") + " has no dedup record"));
            }
        }
        try (PreparedStatement ps = scope.prepare("select o.id from orders o where o.created_at > " + horizon
                + " and " + scope.on("o.id") + " and not exists (select 1 from idempotency_keys k"
                + " where k.order_id = o.id and k.scope like '% POST /orders ') order by o.id", 1);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Violation(EFFECT_HAS_RECORD, (UUID) rs.getObject("id"),
                        "the order has no dedup record of its creation (POST /orders requires a key)"));
            }
        }
    }

    private static Optional<OrderStatus> next(String from, String event) {
        try {
            return OrderTransitions.next(OrderStatus.valueOf(from), OrderEvent.valueOf(event));
        } catch (IllegalArgumentException unknownName) {
            return Optional.empty();
        }
    }

    private static boolean isCaptured(String status) {
        return CAPTURED.stream().anyMatch(s -> s.name().equals(status));
    }

    /** Whether the table lets an order that took PAYMENT_SUCCEEDED ever take it again (today it does not). */
    private static boolean captureCanRepeat() {
        Deque<OrderStatus> todo = new ArrayDeque<>();
        Set<OrderStatus> seen = EnumSet.noneOf(OrderStatus.class);
        for (OrderStatus from : OrderTransitions.sourcesOf(OrderEvent.PAYMENT_SUCCEEDED)) {
            OrderTransitions.next(from, OrderEvent.PAYMENT_SUCCEEDED).ifPresent(todo::add);
        }
        while (!todo.isEmpty()) {
            OrderStatus s = todo.poll();
            if (!seen.add(s)) {
                continue;
            }
            if (OrderTransitions.allows(s, OrderEvent.PAYMENT_SUCCEEDED)) {
                return true;
            }
            for (OrderEvent e : OrderTransitions.allowedEvents(s)) {
                OrderTransitions.next(s, e).ifPresent(todo::add);
            }
        }
        return false;
    }

    // ----------------------------------------------------------------------------------------------------------

    /** {@code <jdbc-url> [user] [password]}: checks every order, prints the violations, exits 1 when any. */
    public static void main(String[] args) {
        int code = run(args, System.out);
        if (code != 0) {
            System.exit(code);
        }
    }

    static int run(String[] args, PrintStream out) {
        if (args.length < 1 || args.length > 3 || !args[0].startsWith("jdbc:postgresql:")) {
            out.println("usage: InvariantChecker <jdbc:postgresql://host:port/db> [user] [password]");
            return 2;
        }
        String user = args.length > 1 ? args[1] : "postgres";
        String password = args.length > 2 ? args[2] : "";
        Report report = new InvariantChecker(args[0], user, password).report(null);
        report.violations().forEach(v -> out.println("VIOLATION " + v));
        out.println(report.ordersChecked() + " orders checked, " + report.violations().size() + " violations");
        return report.violations().isEmpty() ? 0 : 1;
    }
}
