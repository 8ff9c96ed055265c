package io.orderflow.support;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * One application for three test classes that each need one setting of their own, narrow enough that the other two
 * never notice it, so that Quarkus builds and starts it once instead of three times (about 13 s each time):
 * <ul>
 * <li>an idle timeout of {@value #IDLE_TIMEOUT} instead of the shipped one, which SlowClientsTest would otherwise sit
 * out (its stalled connections are its own; the other tests' requests are short);</li>
 * <li>the scheduled feed sequencer, stream relay and purge off, so that FeedTest runs them by hand exactly when it
 * says (the other two look at no event);</li>
 * <li>no linger for first answers, 30 s for repeated ones: RepeatLingerTest (the other two never repeat a key).</li>
 * </ul>
 */
public class NarrowOverrides implements QuarkusTestProfile {

    public static final String IDLE_TIMEOUT = "2s";

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.http.idle-timeout", IDLE_TIMEOUT,
                "events.sequencer.every", "off", "events.relay.every", "off", "events.purge.every", "off",
                "idempotency.replica.linger", "0s", "idempotency.replica.replay-linger", "30s");
    }
}
