package io.orderflow.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.ItDatabase;
import io.orderflow.support.ServiceProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The packaged jar in the prod profile without a key to verify tokens refuses to start, and says why on one line;
 * with the key it starts (every other process-level test starts it so).
 */
class TokenVerificationKeyIT {

    private static final String REASON = "No key to verify bearer tokens: set MP_JWT_VERIFY_PUBLICKEY_LOCATION";

    @Test
    void shouldRefuseToStartWithoutAKeyToVerifyTokensAndSayWhyOnOneLine() {
        ItDatabase.createIfMissing();
        ServiceProcess service = ServiceProcess.start("TokenVerificationKeyIT",
                Map.of("MP_JWT_VERIFY_PUBLICKEY_LOCATION", ServiceProcess.UNSET));
        try {
            // it exits, or it answers ready (it started without a key): whichever comes first, within the startup bound
            long deadline = System.nanoTime() + Duration.ofMinutes(4).toNanos();
            while (service.isAlive() && service.readiness() != 200 && System.nanoTime() < deadline) {
                ServiceProcess.sleep(250);
            }
            assertEquals(ServiceProcess.REFUSED, service.readiness(), "it started without a key:\n" + service.tail(30));
            assertNotEquals(0, service.awaitExit(Duration.ofMinutes(1)), "it refused to start:\n" + service.tail(30));
        } finally {
            service.stop();
        }
        List<String> reasons = service.logText().lines().filter(line -> line.contains(REASON)).toList();
        assertTrue(!reasons.isEmpty(), "the log says why:\n" + service.tail(30));
        assertTrue(reasons.get(0).contains("MP_JWT_VERIFY_PUBLICKEY (the key itself), see docs/security.md"),
                "the whole reason on one line: " + reasons.get(0));
    }
}
