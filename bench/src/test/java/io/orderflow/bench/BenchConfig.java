package io.orderflow.bench;

import static io.gatling.javaapi.http.HttpDsl.http;

import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.nio.file.Path;

/**
 * Everything a simulation reads from system properties (run.sh sets them; defaults suit a service started by hand
 * on port 18080). Tokens are minted by run.sh with dev/mint-token.sh (long TTL) rather than signed here, so the
 * bench never holds the dev private key in its own code.
 */
public final class BenchConfig {

    /** The service under test. Load only ever targets the loopback address. */
    public static final String BASE_URL = System.getProperty("bench.baseUrl", "http://127.0.0.1:18080");
    /** The service's management interface (health, metrics), on a port of its own. */
    public static final String MANAGEMENT_URL = System.getProperty("bench.managementUrl", "http://127.0.0.1:9000");
    public static final String CUSTOMER_TOKEN = System.getProperty("bench.customerToken", "");
    public static final String OPERATOR_TOKEN = System.getProperty("bench.operatorToken", "");
    /** mockpay's callback secret: the public dev/test value the service is started with. */
    public static final String MOCKPAY_SECRET = System.getProperty("bench.mockpaySecret",
            "whsec_dev_mockpay_not_a_secret");
    /** Where the server-side samples and per-level figures go (run.sh collects them into the summary). */
    public static final Path RESULTS = Path.of(System.getProperty("bench.results", "target/results"));
    /** A label for this run's result files, e.g. "s1-stairs", "s3-fixed". */
    public static final String LABEL = System.getProperty("bench.label", "run");

    private BenchConfig() {
    }

    /**
     * One shared connection pool, as a service-to-service client or gateway would have; per-user connections (the
     * browser model) would make every lifecycle pay TCP set-up and measure the accept loop instead of the service.
     * No warm-up request (Gatling's default one goes to an outside host), no HTTP cache (it would turn GETs into
     * conditional requests the service never sees otherwise).
     */
    public static HttpProtocolBuilder protocol() {
        return http.baseUrl(BASE_URL)
                .acceptHeader("application/json")
                .contentTypeHeader("application/json")
                .shareConnections()
                .disableWarmUp()
                .disableCaching()
                .disableFollowRedirect();
    }

    public static String bearer(String token) {
        return "Bearer " + token;
    }

    public static String property(String name, String fallback) {
        return System.getProperty(name, fallback);
    }

    public static double number(String name, double fallback) {
        String value = System.getProperty(name);
        return value == null || value.isBlank() ? fallback : Double.parseDouble(value);
    }
}
