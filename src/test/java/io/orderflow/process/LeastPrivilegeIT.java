package io.orderflow.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.ItDatabase;
import io.orderflow.support.ServiceClient;
import io.orderflow.support.ServiceProcess;
import io.orderflow.support.TestServices;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The packaged jar as production runs it (issue 43, item 9): the service connects as a role of its own that may only
 * read and write rows, while Flyway migrates as the schema's owner and then grants that role what it needs
 * (db/migration/afterMigrate.sql). A lifecycle, a cancel and the feed work through the service; the role can create,
 * alter and drop nothing and cannot touch Flyway's history; and nothing the service did was refused a privilege.
 */
class LeastPrivilegeIT {

    static final String APP_ROLE = "orderflow_it_app";
    private static final String APP_PASSWORD = "it-app-not-a-secret";

    @Test
    void shouldServeAsARoleThatOnlyReadsAndWritesRowsWhileTheOwnerMigrates() throws Exception {
        ItDatabase.createIfMissing();
        try (Connection owner = ItDatabase.connect(); Statement sql = owner.createStatement()) {
            sql.execute("do $$ begin if not exists (select from pg_roles where rolname = '" + APP_ROLE + "') then"
                    + " create role " + APP_ROLE + " login password '" + APP_PASSWORD + "'; end if; end $$");
        }
        String ownerPassword = ItDatabase.password() == null || ItDatabase.password().isEmpty()
                ? "trusted-locally" : ItDatabase.password();
        ServiceProcess service = ServiceProcess.start("LeastPrivilegeIT", Map.of(
                "QUARKUS_DATASOURCE_USERNAME", APP_ROLE, "QUARKUS_DATASOURCE_PASSWORD", APP_PASSWORD,
                "QUARKUS_FLYWAY_USERNAME", ItDatabase.user(), "QUARKUS_FLYWAY_PASSWORD", ownerPassword))
                .awaitReady();
        try {
            ServiceClient client = new ServiceClient(service);
            String customer = ServiceClient.newCustomer();
            String order = client.createOrder(customer, key()).field("id");
            assertEquals(200, client.transition(order, "pay", customer, key(), ServiceClient.PAY_BODY).status());
            String event = "evt_" + UUID.randomUUID();
            assertEquals(200, client.callback(ServiceClient.providerEvent(event, "PAYMENT_SUCCEEDED", order,
                    "txn_" + event)).status());
            assertEquals(200, client.transition(order, "ship", customer, key(), ServiceClient.SHIP_BODY).status());
            assertEquals(200, client.transition(order, "deliver", customer, key(), ServiceClient.DELIVER_BODY)
                    .status());
            String cancelled = client.createOrder(customer, key()).field("id");
            assertEquals(200, client.transition(cancelled, "cancel", customer, key(), ServiceClient.CANCEL_BODY)
                    .status());
            assertEquals(200, client.events(null, 10).status());
            assertEquals("DELIVERED", client.getOrder(order).field("status"));

            assertTrue(ItDatabase.count("select count(*) from pg_stat_activity where datname = ? and usename = ?",
                    ItDatabase.NAME, APP_ROLE) > 0, "the service's pool connects as " + APP_ROLE);
        } finally {
            service.stop();
        }
        List<String> refused = service.logText().lines()
                .filter(line -> line.contains("permission denied") || line.contains("42501")).toList();
        assertEquals(List.of(), refused, "the service was refused nothing it does");

        try (Connection app = DriverManager.getConnection(ItDatabase.jdbcUrl(), APP_ROLE, APP_PASSWORD);
                Statement sql = app.createStatement()) {
            assertTrue(sql.executeQuery("select count(*) from orders").next(), "the role reads rows");
            for (String forbidden : List.of("create table intruder (id int)", "alter table orders add column x int",
                    "drop table orders", "truncate orders",
                    "delete from flyway_schema_history", "insert into flyway_schema_history (installed_rank)"
                            + " values (-1)")) {
                SQLException refusal = assertThrows(SQLException.class, () -> sql.execute(forbidden), forbidden);
                assertEquals("42501", refusal.getSQLState(), forbidden + ": " + refusal.getMessage());
            }
        }
        assertFalse(TestServices.get().postgres().user().equals(APP_ROLE), "the owner is another role");
    }

    private static String key() {
        return UUID.randomUUID().toString();
    }
}
