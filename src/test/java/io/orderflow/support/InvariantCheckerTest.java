package io.orderflow.support;

import static io.orderflow.support.InvariantChecker.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.order.domain.OrderEvent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The checker against hand-made rows: a scratch schema per test (the service's own migrations, applied to it), a
 * consistent order to start from, and one broken promise at a time, each of which the checker must report.
 */
class InvariantCheckerTest {

    private String schema;
    private Connection db;
    private InvariantChecker checker;

    @BeforeEach
    void scratchSchema() throws SQLException, IOException {
        ItDatabase.createIfMissing();
        schema = "invariant_checker_" + UUID.randomUUID().toString().replace("-", "");
        db = DriverManager.getConnection(ItDatabase.jdbcUrl(), ItDatabase.user(), ItDatabase.password());
        try (Statement s = db.createStatement()) {
            s.execute("create schema " + schema);
            s.execute("set search_path to " + schema);
            try (Stream<Path> files = Files.list(Path.of("src/main/resources/db/migration"))) {
                // the versioned migrations (not Flyway's callbacks, such as afterMigrate.sql), by version number: V10
                // comes after V9, not after V1
                for (Path migration : files.filter(f -> f.getFileName().toString().matches("V\\d+__.*\\.sql"))
                        .sorted(Comparator.comparingInt(
                        f -> Integer.parseInt(f.getFileName().toString().replaceAll("^V(\\d+)__.*$", "$1")))).toList()) {
                    s.execute(Files.readString(migration));
                }
            }
        }
        checker = new InvariantChecker(scratchUrl(), ItDatabase.user(), ItDatabase.password());
    }

    @AfterEach
    void dropScratchSchema() throws SQLException {
        try (Statement s = db.createStatement()) {
            s.execute("drop schema " + schema + " cascade");
        }
        db.close();
    }

    @Test
    void shouldFindNothingWrongWithConsistentOrders() throws SQLException {
        shippedOrder();
        createdOrder();
        cancelledAfterCaptureOrder();
        refundedOrder();

        assertEquals(List.of(), checker.check());
    }

    @Test
    void shouldReportAForeignCurrentAttemptAForeignCaptureAndASecondCaptureWithoutItsAnomaly() throws SQLException {
        UUID paid = order("PAID", 2, true, "txn-own");
        UUID other = order("CREATED", 0, false, null);
        createRecord(paid);
        createRecord(other);
        step(paid, 1, "PAY", "CREATED", "PAYMENT_PENDING", "api", null);
        step(paid, 2, "PAYMENT_SUCCEEDED", "PAYMENT_PENDING", "PAID", "mockpay", null);
        UUID foreign = UUID.randomUUID();
        update("insert into payment_attempts (id, order_id, provider, amount, currency, state, created_at,"
                + " updated_at) values (?, ?, 'mockpay', 3000, 'EUR', 'PENDING', now(), now())", foreign, other);
        update("update orders set payment_attempt_id = ? where id = ?", foreign, paid);
        update("insert into payment_captures (provider, txn_id, attempt_id, order_id, amount, currency, state,"
                + " captured_at) values ('mockpay', 'txn-own', ?, ?, 3000, 'EUR', 'CAPTURED', now()),"
                + " ('mockpay', 'txn-again', null, ?, 3000, 'EUR', 'REFUND_OWED', now())", foreign, paid, paid);

        update("insert into payment_captures (provider, txn_id, attempt_id, order_id, amount, currency, state,"
                + " captured_at) values ('stripe', 'ch_orphan', null, ?, 3000, 'EUR', 'REFUND_OWED', now())", paid);
        update("insert into payment_anomalies (order_id, provider, provider_txn_id, kind, detail, event_id,"
                + " at) values (?, 'stripe', 'ch_orphan', 'double-capture', 'planted', 'evt-orphan', now())",
                paid);
        refundCommandOf(paid, "stripe", "ch_orphan");

        List<InvariantChecker.Violation> found = checker.check();
        assertEquals(Set.of(CURRENT_ATTEMPT, CAPTURE_OF_ITS_ORDER, SECOND_CAPTURE_RECORDED, CAPTURE_HAS_ATTEMPT,
                OWED_REFUND_HAS_COMMAND), rules(found));
        assertTrue(found.stream().anyMatch(v -> v.rule().equals(CAPTURE_HAS_ATTEMPT)
                && v.detail().contains("ch_orphan")), found.toString());
    }

    @Test
    void shouldReportARefundOwedThatNoCommandSendsAndACommandThatRefundsNothingCaptured() throws SQLException {
        UUID cancelled = cancelledAfterCaptureOrder();
        update("delete from provider_commands where order_id = ?", cancelled);
        UUID other = createdOrder();
        refundCommand(other, "txn-never-captured");

        List<InvariantChecker.Violation> found = checker.check();
        assertEquals(Set.of(OWED_REFUND_HAS_COMMAND, COMMAND_REFUNDS_A_CAPTURE), rules(found));
        assertEquals(Set.of(cancelled, other), found.stream().map(InvariantChecker.Violation::orderId)
                .collect(Collectors.toSet()));
    }

    @Test
    void shouldReportACommandRefundedTwiceAtItsProvider() throws SQLException {
        UUID id = refundedOrder();
        UUID command = commandOf(id);
        // the worker's refund re_1, and a second one for the same command: the key was lost, the money went twice
        update("insert into provider_refunds (provider, refund_id, command_id, capture_txn_id, seen_at)"
                + " values ('stripe', 're_2', ?, 'ch_refunded', now())", command);

        List<InvariantChecker.Violation> found = checker.check();
        assertEquals(Set.of(ONE_REFUND_PER_COMMAND), rules(found));
        assertTrue(found.get(0).detail().contains("re_1_" + id + ", re_2"), found.toString());
        assertEquals(id, found.get(0).orderId());
    }

    @Test
    void shouldReportARefundedOrderWhoseOwnCaptureIsNotRefunded() throws SQLException {
        UUID stillCaptured = refundedOrder();
        update("update payment_captures set state = 'CAPTURED', refunded_at = null where order_id = ?", stillCaptured);
        UUID noCapture = refundedOrder();
        update("delete from provider_refunds where command_id = ?", commandOf(noCapture));
        update("delete from provider_commands where order_id = ?", noCapture);
        update("delete from payment_captures where order_id = ?", noCapture);

        List<InvariantChecker.Violation> found = checker.check();
        assertEquals(Set.of(REFUNDED_ORDER_CAPTURE_REFUNDED), rules(found));
        assertEquals(Set.of(stillCaptured, noCapture), found.stream().map(InvariantChecker.Violation::orderId)
                .collect(Collectors.toSet()));
    }

    @Test
    void shouldReportAHistoryThatIsNotAPathThroughTheTable() throws SQLException {
        UUID id = order("SHIPPED", 1, false, null);
        createRecord(id);
        step(id, 1, "SHIP", "CREATED", "SHIPPED", "api", null);

        assertEquals(Set.of(HISTORY_PATH, PAID_HAS_CAPTURE), rules(checker.check()));
    }

    @Test
    void shouldReportAGapInTheHistorySeq() throws SQLException {
        UUID id = order("PAID", 2, true, "txn-1");
        createRecord(id);
        step(id, 1, "PAY", "CREATED", "PAYMENT_PENDING", "api", null);
        step(id, 3, "PAYMENT_SUCCEEDED", "PAYMENT_PENDING", "PAID", "mockpay", null);

        assertEquals(Set.of(HISTORY_PATH), rules(checker.check()));
    }

    @Test
    void shouldReportAStatusAndAVersionThatDisagreeWithTheHistory() throws SQLException {
        UUID id = order("CANCELLED", 2, false, null);
        createRecord(id);
        step(id, 1, "PAY", "CREATED", "PAYMENT_PENDING", "api", null);

        assertEquals(Set.of(STATUS, VERSION), rules(checker.check()));
    }

    @Test
    void shouldReportAnIdempotencyKeyAppliedTwice() throws SQLException {
        UUID id = order("PAYMENT_PENDING", 3, false, null);
        createRecord(id);
        step(id, 1, "PAY", "CREATED", "PAYMENT_PENDING", "api", "k-pay");
        step(id, 2, "PAYMENT_FAILED", "PAYMENT_PENDING", "CREATED", "mockpay", "evt-failed");
        step(id, 3, "PAY", "CREATED", "PAYMENT_PENDING", "api", "k-pay");
        record("customer:c-1 POST /orders/{id}/pay " + id, "k-pay", id, false);
        record("provider:mockpay POST /payments/{provider}/callbacks ", "evt-failed", id, false);

        assertEquals(Set.of(KEY_ONCE), rules(checker.check()));
    }

    @Test
    void shouldReportAProviderEventAppliedToTwoOrders() throws SQLException {
        UUID first = null;
        for (int i = 0; i < 2; i++) {
            UUID id = order("PAID", 1, true, "txn-" + i);
            createRecord(id);
            step(id, 1, "PAYMENT_SUCCEEDED", "CREATED", "PAID", "mockpay", "evt-same");
            first = first == null ? id : first;
        }
        // the event's one dedup record can name only one of the two orders
        record("provider:mockpay POST /payments/{provider}/callbacks ", "evt-same", first, false);

        assertEquals(Set.of(PROVIDER_EVENT_ONCE, EFFECT_HAS_RECORD), rules(checker.check()));
    }

    @Test
    void shouldReportASecondCaptureOfOneOrder() throws SQLException {
        UUID id = order("PAID", 2, true, "txn-2");
        createRecord(id);
        step(id, 1, "PAYMENT_SUCCEEDED", "CREATED", "PAID", "mockpay", null);
        step(id, 2, "PAYMENT_SUCCEEDED", "PAID", "PAID", "mockpay", null);

        Set<String> rules = rules(checker.check());
        assertTrue(rules.containsAll(Set.of(CAPTURE_ONCE, PAID_HAS_CAPTURE, HISTORY_PATH)), rules.toString());
    }

    @Test
    void shouldReportAPaidOrderWithoutItsCapture() throws SQLException {
        UUID id = order("PAID", 0, false, null);
        createRecord(id);

        assertEquals(Set.of(STATUS, PAID_HAS_CAPTURE), rules(checker.check()));
    }

    @Test
    void shouldReportACancelledOrderWhosePaymentWasCaptured() throws SQLException {
        UUID id = order("CANCELLED", 1, true, "txn-3");
        createRecord(id);
        step(id, 1, "CANCEL", "CREATED", "CANCELLED", "api", null);

        assertEquals(Set.of(CANCELLED_CAPTURE_REFUNDS), rules(checker.check()));
    }

    @Test
    void shouldReportADedupRecordWithoutItsEffect() throws SQLException {
        UUID id = createdOrder();
        record("operator:ops-1 POST /orders/{id}/ship " + id, "k-ship", id, false);
        record("customer:c-1 POST /orders ", "k-lost", UUID.randomUUID(), false);
        // a duplicate's stored answer, or a business failure's, names the order without an effect of its own: fine
        record("operator:ops-1 POST /orders/{id}/cancel " + id, "k-dup", id, true);
        update("insert into idempotency_keys (scope, idem_key, tier, state, fingerprint, order_id, reply,"
                + " created_at, expires_at, expired_at) values (?, 'k-409', 'ORDERS', 'EXPIRED', 'f', ?,"
                + " '{\"s\": 409, \"c\": \"application/problem+json\", \"h\": {}, \"b\": \"e30=\"}'::jsonb,"
                + " now() - interval '8 days', now() - interval '1 day', now())",
                "operator:ops-1 POST /orders/{id}/deliver " + id, id);

        List<Violation> violations = checker.check();
        assertEquals(List.of(RECORD_HAS_EFFECT, RECORD_HAS_EFFECT),
                violations.stream().map(Violation::rule).toList(), violations.toString());
    }

    @Test
    void shouldReportAKeyedEffectWithoutItsDedupRecord() throws SQLException {
        UUID id = order("PAYMENT_PENDING", 1, false, null);
        step(id, 1, "PAY", "CREATED", "PAYMENT_PENDING", "api", "k-unrecorded");

        List<Violation> violations = checker.check();
        assertEquals(List.of(EFFECT_HAS_RECORD, EFFECT_HAS_RECORD), violations.stream().map(Violation::rule).toList(),
                "the PAY and the creation: " + violations);
    }

    @Test
    void shouldCheckOnlyTheOrdersItIsAskedAbout() throws SQLException {
        UUID good = shippedOrder();
        UUID bad = order("DELIVERED", 0, false, null);

        assertEquals(List.of(), checker.check(List.of(good)));
        assertEquals(Set.of(bad), checker.check(List.of(bad)).stream().map(Violation::orderId)
                .collect(Collectors.toSet()));
        assertEquals(Set.of(bad), checker.check().stream().map(Violation::orderId).collect(Collectors.toSet()));
    }

    @Test
    void shouldReportAnAcknowledgedWriteThatIsNotStored() throws SQLException {
        UUID shipped = shippedOrder();
        UUID missing = UUID.randomUUID();

        assertEquals(List.of(), checker.checkAcknowledged(List.of(Ack.created(shipped),
                new Ack(shipped, OrderEvent.PAY), new Ack(shipped, OrderEvent.SHIP))));
        List<Violation> violations = checker.checkAcknowledged(List.of(new Ack(shipped, OrderEvent.DELIVER),
                Ack.created(missing)));
        assertEquals(List.of(shipped, missing), violations.stream().map(Violation::orderId).toList());
        assertEquals(Set.of(ACKNOWLEDGED), rules(violations));
    }

    @Test
    void shouldRunFromTheCommandLineAndExitNonZeroOnViolations() throws SQLException {
        shippedOrder();
        ByteArrayOutputStream clean = new ByteArrayOutputStream();
        assertEquals(0, InvariantChecker.run(new String[] { scratchUrl(), ItDatabase.user(), ItDatabase.password() },
                new PrintStream(clean, true, StandardCharsets.UTF_8)));
        assertTrue(clean.toString(StandardCharsets.UTF_8).contains("1 orders checked, 0 violations"),
                clean.toString(StandardCharsets.UTF_8));

        order("SHIPPED", 0, false, null);
        ByteArrayOutputStream broken = new ByteArrayOutputStream();
        assertEquals(1, InvariantChecker.run(new String[] { scratchUrl(), ItDatabase.user(), ItDatabase.password() },
                new PrintStream(broken, true, StandardCharsets.UTF_8)));
        assertTrue(broken.toString(StandardCharsets.UTF_8).contains("VIOLATION " + STATUS),
                broken.toString(StandardCharsets.UTF_8));
        assertEquals(2, InvariantChecker.run(new String[0], new PrintStream(new ByteArrayOutputStream())));
    }

    // --- hand-made rows -----------------------------------------------------------------------------------------

    private String scratchUrl() {
        return ItDatabase.jdbcUrl() + "?currentSchema=" + schema;
    }

    private static Set<String> rules(List<Violation> violations) {
        return violations.stream().map(Violation::rule).collect(Collectors.toSet());
    }

    /** CREATED → PAY → PAYMENT_SUCCEEDED → SHIP, every keyed step with its dedup record. */
    private UUID shippedOrder() throws SQLException {
        UUID id = order("SHIPPED", 3, true, "txn-ok");
        createRecord(id);
        step(id, 1, "PAY", "CREATED", "PAYMENT_PENDING", "api", "k-pay-" + id);
        step(id, 2, "PAYMENT_SUCCEEDED", "PAYMENT_PENDING", "PAID", "mockpay", "evt-" + id);
        step(id, 3, "SHIP", "PAID", "SHIPPED", "api", "k-ship-" + id);
        record("customer:c-1 POST /orders/{id}/pay " + id, "k-pay-" + id, id, false);
        record("provider:mockpay POST /payments/{provider}/callbacks ", "evt-" + id, id, false);
        record("operator:ops-1 POST /orders/{id}/ship " + id, "k-ship-" + id, id, false);
        return id;
    }

    private UUID createdOrder() throws SQLException {
        UUID id = order("CREATED", 0, false, null);
        createRecord(id);
        return id;
    }

    /** CREATED → CANCEL (unkeyed) → PAYMENT_SUCCEEDED → REFUND_PENDING: money taken after a cancel goes back. */
    private UUID cancelledAfterCaptureOrder() throws SQLException {
        UUID id = order("REFUND_PENDING", 2, true, "txn-late");
        createRecord(id);
        step(id, 1, "CANCEL", "CREATED", "CANCELLED", "api", null);
        step(id, 2, "PAYMENT_SUCCEEDED", "CANCELLED", "REFUND_PENDING", "mockpay", "evt-late-" + id);
        record("provider:mockpay POST /payments/{provider}/callbacks ", "evt-late-" + id, id, false);
        UUID attempt = UUID.randomUUID();
        update("insert into payment_attempts (id, order_id, provider, reference, amount, currency, state, created_at,"
                + " updated_at) values (?, ?, 'mockpay', ?, 3000, 'EUR', 'CAPTURED', now(), now())", attempt, id,
                "ref-" + id);
        update("insert into payment_captures (provider, txn_id, attempt_id, order_id, amount, currency, state,"
                + " captured_at) values ('mockpay', 'txn-late', ?, ?, 3000, 'EUR', 'CAPTURED', now())", attempt, id);
        refundCommand(id, "txn-late");
        return id;
    }

    /**
     * A Stripe order paid, cancelled and refunded: its attempt, its capture REFUNDED, its refund command DONE and
     * the one refund Stripe made for it ({@code re_1}).
     */
    private UUID refundedOrder() throws SQLException {
        UUID id = order("REFUNDED", 4, true, "ch_refunded");
        update("update orders set payment_provider = 'stripe', refunded_at = now() where id = ?", id);
        createRecord(id);
        step(id, 1, "PAY", "CREATED", "PAYMENT_PENDING", "api", "k-pay-" + id);
        step(id, 2, "PAYMENT_SUCCEEDED", "PAYMENT_PENDING", "PAID", "stripe", "evt_paid_" + id);
        step(id, 3, "CANCEL", "PAID", "REFUND_PENDING", "api", null);
        step(id, 4, "REFUND_SUCCEEDED", "REFUND_PENDING", "REFUNDED", "stripe", "evt_refunded_" + id);
        record("customer:c-1 POST /orders/{id}/pay " + id, "k-pay-" + id, id, false);
        record("provider:stripe POST /payments/{provider}/callbacks ", "evt_paid_" + id, id, false);
        record("provider:stripe POST /payments/{provider}/callbacks ", "evt_refunded_" + id, id, false);
        UUID attempt = UUID.randomUUID();
        update("insert into payment_attempts (id, order_id, provider, reference, amount, currency, state, created_at,"
                + " updated_at) values (?, ?, 'stripe', ?, 3000, 'EUR', 'CAPTURED', now(), now())", attempt, id,
                "pi_" + id);
        update("update orders set payment_attempt_id = ? where id = ?", attempt, id);
        // the same charge id on every such order would be refused by the primary key: provider, txn_id
        update("update orders set payment_txn_id = ? where id = ?", "ch_refunded_" + id, id);
        update("insert into payment_captures (provider, txn_id, attempt_id, order_id, amount, currency, state,"
                + " captured_at, refunded_at) values ('stripe', ?, ?, ?, 3000, 'EUR', 'REFUNDED', now(), now())",
                "ch_refunded_" + id, attempt, id);
        UUID command = UUID.randomUUID();
        update("insert into provider_commands (id, kind, order_id, provider, payment_reference, capture_txn_id, amount,"
                + " currency, state, tries, next_at, refund_id, created_at, updated_at) values (?, 'REFUND', ?,"
                + " 'stripe', ?, ?, 3000, 'EUR', 'DONE', 1, now(), 're_1', now(), now())", command, id, "pi_" + id,
                "ch_refunded_" + id);
        update("insert into provider_refunds (provider, refund_id, command_id, capture_txn_id, seen_at)"
                + " values ('stripe', ?, ?, ?, now())", "re_1_" + id, command, "ch_refunded_" + id);
        return id;
    }

    private UUID commandOf(UUID orderId) throws SQLException {
        try (PreparedStatement ps = db.prepareStatement("select id from provider_commands where order_id = ?")) {
            ps.setObject(1, orderId);
            try (var rs = ps.executeQuery()) {
                rs.next();
                return (UUID) rs.getObject(1);
            }
        }
    }

    private void refundCommand(UUID orderId, String captureTxnId) throws SQLException {
        refundCommandOf(orderId, "mockpay", captureTxnId);
    }

    private void refundCommandOf(UUID orderId, String provider, String captureTxnId) throws SQLException {
        update("insert into provider_commands (id, kind, order_id, provider, capture_txn_id, amount, currency, state,"
                + " tries, next_at, created_at, updated_at) values (?, 'REFUND', ?, ?, ?, 3000, 'EUR',"
                + " 'PENDING', 0, now(), now(), now())", UUID.randomUUID(), orderId, provider, captureTxnId);
    }

    private UUID order(String status, long version, boolean paid, String txnId) throws SQLException {
        UUID id = UUID.randomUUID();
        update("insert into orders (id, customer_id, status, version, currency, amount, items, payment_txn_id,"
                + " paid_at, created_at, updated_at) values (?, 'c-1', ?, ?, 'EUR', 3000, '[]'::jsonb, ?,"
                + " case when ? then now() end, now(), now())", id, status, version, txnId, paid);
        return id;
    }

    private void step(UUID id, int seq, String event, String from, String to, String source, String key)
            throws SQLException {
        update("insert into order_transitions (order_id, seq, event, from_status, to_status, at, source, request_key)"
                + " values (?, ?, ?, ?, ?, now(), ?, ?)", id, seq, event, from, to, source, key);
    }

    private void createRecord(UUID id) throws SQLException {
        record("customer:c-1 POST /orders ", "k-create-" + id, id, false);
    }

    private void record(String scope, String key, UUID orderId, boolean replayed) throws SQLException {
        // a write's record keeps the row it wrote; a duplicate's keeps its rendered, replayed answer
        update("insert into idempotency_keys (scope, idem_key, tier, state, fingerprint, order_id, result, reply,"
                + " created_at, expires_at) values (?, ?, 'ORDERS', 'DONE', 'f', ?, ?::jsonb, ?::jsonb,"
                + " now(), now() + interval '7 days')", scope, key, orderId, replayed ? null : "{}",
                replayed ? "{\"s\": 200, \"c\": \"application/json\", \"h\": {\"Idempotent-Replayed\": \"true\"},"
                        + " \"b\": \"e30=\"}" : null);
    }

    private void update(String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = db.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            ps.executeUpdate();
        }
    }
}
