package io.orderflow.support;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.netcrusher.core.filter.TransformFilter;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * A TCP proxy (NetCrusher) in front of the test Redis ({@link TestServices}) that counts, by name, the commands its
 * clients send through it, and can freeze them in transit: proof on the wire of which commands reached Redis.
 */
public final class CountingRedisProxy implements AutoCloseable {

    private static final String LOOPBACK = "127.0.0.1";

    private final Map<String, AtomicLong> commands = new ConcurrentHashMap<>();
    private final NioReactor reactor;
    private final TcpCrusher proxy;

    public CountingRedisProxy() {
        try {
            reactor = new NioReactor();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        TestServices.Redis redis = TestServices.get().redis();
        proxy = TcpCrusherBuilder.builder().withReactor(reactor).withBindAddress(LOOPBACK, FreePorts.take())
                .withConnectAddress(redis.host(), redis.port())
                .withOutgoingTransformFilterFactory(address -> new CommandNames())
                .buildAndOpen();
    }

    /** The URL that sends a client through the proxy to {@code database}. */
    public String url(int database) {
        return new TestServices.Redis(LOOPBACK, proxy.getBindAddress().getPort()).url(database);
    }

    /** Commands named {@code name} (SET, GETDEL…) that passed the proxy so far. */
    public long count(String name) {
        AtomicLong count = commands.get(name.toUpperCase(Locale.ROOT));
        return count == null ? 0 : count.get();
    }

    /** Holds every byte in transit, both ways, until {@link #unfreeze()}; nothing is lost. */
    public void freeze() {
        proxy.freeze();
    }

    public void unfreeze() {
        proxy.unfreeze();
    }

    @Override
    public void close() {
        proxy.close();
        reactor.close();
    }

    /**
     * Reads one connection's client-to-server stream as RESP commands (an array header {@code *n}, then n bulk
     * strings {@code $len}), across reads, and counts each by its first element. The bytes pass unchanged.
     */
    private final class CommandNames implements TransformFilter {

        private final StringBuilder line = new StringBuilder();
        private final StringBuilder name = new StringBuilder();
        private boolean nameNext;
        private boolean readingName;
        private long bulkLeft;

        @Override
        public void transform(ByteBuffer bytes) {
            for (int i = bytes.position(); i < bytes.limit(); i++) {
                byte b = bytes.get(i);
                if (bulkLeft > 0) {
                    bulk(b);
                } else if (b == '\n') {
                    header(line.toString());
                    line.setLength(0);
                } else if (b != '\r') {
                    line.append((char) b);
                }
            }
        }

        private void header(String header) {
            if (header.startsWith("*")) {
                nameNext = true;
            } else if (header.startsWith("$")) {
                bulkLeft = Long.parseLong(header.substring(1)) + 2; // the string, then its CRLF
                readingName = nameNext;
                nameNext = false;
            }
        }

        private void bulk(byte b) {
            bulkLeft--;
            if (!readingName) {
                return;
            }
            if (bulkLeft >= 2) {
                name.append((char) b);
            } else if (bulkLeft == 0) {
                commands.computeIfAbsent(name.toString().toUpperCase(Locale.ROOT), n -> new AtomicLong())
                        .incrementAndGet();
                name.setLength(0);
                readingName = false;
            }
        }
    }
}
