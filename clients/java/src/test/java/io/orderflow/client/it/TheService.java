package io.orderflow.client.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.orderflow.client.OrderflowClient;
import io.orderflow.client.RetryPolicy;
import java.net.URI;
import java.time.Duration;

/**
 * The running service these tests talk to, as the service's ClientsIT describes it in the environment: its packaged
 * jar on {@code ORDERFLOW_URL}, a second instance that sheds load beyond one statement in flight on
 * {@code ORDERFLOW_SHEDDING_URL}, bearer tokens, the mockpay secret and the database both use. Without them the
 * integration tests are skipped (ClientsIT fails a run that skipped any).
 */
final class TheService {

    static final String URL = env("ORDERFLOW_URL");
    static final String SHEDDING_URL = env("ORDERFLOW_SHEDDING_URL");
    static final String CUSTOMER_ID = env("ORDERFLOW_CUSTOMER_ID");
    static final String CUSTOMER_TOKEN = env("ORDERFLOW_CUSTOMER_TOKEN");
    static final String OPERATOR_TOKEN = env("ORDERFLOW_OPERATOR_TOKEN");
    static final String MOCKPAY_SECRET = env("ORDERFLOW_MOCKPAY_SECRET");

    private TheService() {
    }

    static void assumeRunning() {
        assumeTrue(URL != null, "no service to test against: ORDERFLOW_URL is not set (the service's ClientsIT sets it)");
    }

    static OrderflowClient.Builder client(URI base, String token) {
        return OrderflowClient.builder(base).bearerToken(() -> token)
                .retries(RetryPolicy.defaults().withDeadline(Duration.ofSeconds(20)));
    }

    static OrderflowClient customer(URI base) {
        return client(base, CUSTOMER_TOKEN).build();
    }

    static OrderflowClient operator(URI base) {
        return client(base, OPERATOR_TOKEN).build();
    }

    private static String env(String name) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? null : value;
    }
}
