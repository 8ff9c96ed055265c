package io.orderflow.payment.simulator;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Callbacks;
import io.orderflow.support.Parallel;
import io.orderflow.support.Sql;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The provider retry simulator against the live service. Sizes come from system properties, so the same test is
 * the documented way to run bigger simulations: {@code ./mvnw test -Dtest=ProviderRetrySimulationTest
 * -Dsimulator.orders=1000 -Dsimulator.day=PT10S -Dsimulator.ackDropRate=0.5}.
 */
@QuarkusTest
class ProviderRetrySimulationTest {

    @TestHTTPResource
    URL service;

    @Test
    void shouldApplyEveryPaymentExactlyOnceAcross15RedeliveriesWithLostAcksAndConcurrentDuplicates() {
        int orders = Integer.getInteger("simulator.orders", 200);
        List<ProviderRetrySimulator.Charge> charges = createPendingOrders(orders);
        ProviderRetrySimulator.Settings settings = new ProviderRetrySimulator.Settings(
                service.toString().replaceAll("/$", ""), Callbacks.PROVIDER, Callbacks.SECRET,
                Duration.parse(System.getProperty("simulator.day", "PT4S")),
                Double.parseDouble(System.getProperty("simulator.ackDropRate", "1.0")),
                Double.parseDouble(System.getProperty("simulator.concurrentRate", "0.2")),
                Double.parseDouble(System.getProperty("simulator.staleRate", "0.1")),
                Long.getLong("simulator.seed", 20261130L));

        ProviderRetrySimulator.Report report = new ProviderRetrySimulator(settings).run(charges);
        System.out.println(report.summary());

        assertTrue(report.deliveries() >= orders * 16 || settings.ackDropRate() < 1.0,
                "with every ack lost, each notification is delivered 1 + 15 times");
        assertTrue(report.finalStatusByEvent().keySet().stream().allMatch(s -> s.startsWith("2") || s.startsWith("4")),
                "every delivery was finally answered 2xx or a final 4xx: " + report.finalStatusByEvent());
        for (ProviderRetrySimulator.Charge charge : charges) {
            assertEquals(1, Sql.historyCount(charge.orderId(), "PAYMENT_SUCCEEDED"), charge.orderId());
            assertEquals(charge.txnId(), Sql.string("select payment_txn_id from orders where id = ?::uuid",
                    charge.orderId()));
        }
        assertEquals(0, Sql.count("select count(*) from payment_anomalies a join unnest(?::uuid[]) o(id) on a.order_id"
                + " = o.id where a.kind = 'double-capture'", (Object) charges.stream().map(c -> c.orderId())
                        .toArray(String[]::new)), "no order was charged twice");
    }

    private static List<ProviderRetrySimulator.Charge> createPendingOrders(int n) {
        return Parallel.run(n, i -> {
            String id = createOrder();
            postKeyed(id, "pay", payBody(), newKey()).then().statusCode(200);
            return new ProviderRetrySimulator.Charge(id, AMOUNT, "EUR", "txn-sim-" + id);
        });
    }
}
