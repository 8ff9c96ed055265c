package io.orderflow.support;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.netcrusher.core.filter.TransformFilter;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * Counts the service's round trips to PostgreSQL on the wire: a TCP proxy (NetCrusher) between the service's
 * reactive pool and the test PostgreSQL ({@link TestServices}) reads the server's messages and counts ReadyForQuery
 * ({@code Z}), which ends every round trip, BEGIN and COMMIT included. Flyway still migrates over a direct JDBC
 * connection.
 */
public class WireRoundTrips implements QuarkusTestResourceLifecycleManager {

    private static final String LOOPBACK = "127.0.0.1";
    private static final AtomicLong READY_FOR_QUERY = new AtomicLong();
    private static NioReactor reactor;
    private static TcpCrusher proxy;

    /** Round trips completed so far through the proxy. */
    public static long count() {
        return READY_FOR_QUERY.get();
    }

    @Override
    public Map<String, String> start() {
        return open(TestServices.get());
    }

    /** Opens the counting proxy in front of {@code services}' PostgreSQL; returns the configuration that uses it. */
    static Map<String, String> open(TestServices services) {
        try {
            reactor = new NioReactor();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        proxy = TcpCrusherBuilder.builder().withReactor(reactor).withBindAddress(LOOPBACK, FreePorts.take())
                .withConnectAddress(services.postgres().host(), services.postgres().port())
                .withIncomingTransformFilterFactory(address -> new ServerMessages())
                .buildAndOpen();
        TestServices.Postgres through = new TestServices.Postgres(LOOPBACK, proxy.getBindAddress().getPort(),
                services.postgres().user(), services.postgres().password());
        return Map.of("quarkus.datasource.reactive.url", through.reactiveUrl(TestServices.QUARKUS_DATABASE));
    }

    /** The proxy's own address and where it forwards to (for TestServicesTest). */
    static TcpCrusher proxy() {
        return proxy;
    }

    @Override
    public void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (reactor != null) {
            reactor.close();
        }
    }

    /**
     * Splits one connection's server-to-client stream into messages (a type byte, then a length that counts itself
     * and the body) across reads, and counts the ReadyForQuery messages. The bytes pass unchanged.
     */
    private static final class ServerMessages implements TransformFilter {

        private final byte[] header = new byte[5];
        private int headerRead;
        private long bodyLeft;

        @Override
        public void transform(ByteBuffer bytes) {
            for (int i = bytes.position(); i < bytes.limit(); ) {
                if (bodyLeft > 0) {
                    int skip = (int) Math.min(bodyLeft, bytes.limit() - i);
                    bodyLeft -= skip;
                    i += skip;
                    continue;
                }
                header[headerRead++] = bytes.get(i++);
                if (headerRead == header.length) {
                    headerRead = 0;
                    if (header[0] == 'Z') {
                        READY_FOR_QUERY.incrementAndGet();
                    }
                    bodyLeft = ByteBuffer.wrap(header, 1, 4).getInt() - 4L;
                }
            }
        }
    }
}
