package io.orderflow.payment;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.orderflow.common.problem.ProblemType;
import io.orderflow.payment.spi.NotificationRejected;
import io.orderflow.payment.spi.SignedAt;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one timestamp rule of Stripe's, WeChat Pay's and mockpay's signatures: ±tolerance, both ways. */
class SignedAtTest {

    private static final Instant NOW = Instant.parse("2026-01-15T10:00:00Z");
    private static final Duration TOLERANCE = Duration.ofMinutes(5);

    @ParameterizedTest
    @ValueSource(longs = { 0, 300, -300, 1, -1 })
    void shouldAcceptATimestampWithinTheToleranceEitherWay(long offset) {
        assertDoesNotThrow(() -> SignedAt.requireWithin(NOW.getEpochSecond() + offset, NOW, TOLERANCE));
    }

    @ParameterizedTest
    @ValueSource(longs = { 301, -301, 1_000_000, -1_000_000 })
    void shouldRefuseATimestampBeyondTheToleranceEitherWay(long offset) {
        assertRefused(NOW.getEpochSecond() + offset);
    }

    @ParameterizedTest
    @ValueSource(longs = { Long.MIN_VALUE, Long.MAX_VALUE, 0 })
    void shouldRefuseATimestampWhoseDistanceOverflows(long base) {
        // now - (Long.MIN_VALUE + now) wraps to Long.MIN_VALUE, whose Math.abs is negative: inside any window
        assertRefused(base == Long.MIN_VALUE ? Long.MIN_VALUE + NOW.getEpochSecond() : base);
    }

    private static void assertRefused(long epochSeconds) {
        NotificationRejected rejected = assertThrows(NotificationRejected.class,
                () -> SignedAt.requireWithin(epochSeconds, NOW, TOLERANCE));
        assertEquals(ProblemType.SIGNATURE_INVALID.uri(), rejected.problem().type());
    }
}
