package io.orderflow.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    private final RetryPolicy policy = RetryPolicy.defaults().withDelays(Duration.ofMillis(100), Duration.ofSeconds(5));

    @ParameterizedTest
    @ValueSource(ints = {429, 502, 503, 504})
    void shouldRetryOverloadAndGatewayAnswers(int status) {
        assertTrue(RetryPolicy.retryable(status, ProblemTypes.SERVICE_UNAVAILABLE));
        assertTrue(RetryPolicy.retryable(status, ProblemTypes.ABOUT_BLANK));
    }

    @Test
    void shouldRetryAConflictOnlyWhenTheFirstRequestIsStillInFlight() {
        assertTrue(RetryPolicy.retryable(409, ProblemTypes.REQUEST_IN_FLIGHT));
        assertFalse(RetryPolicy.retryable(409, ProblemTypes.ILLEGAL_TRANSITION));
        assertFalse(RetryPolicy.retryable(409, ProblemTypes.TRANSITION_CONFLICT));
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 403, 404, 405, 406, 410, 412, 413, 415, 422, 431, 500, 501})
    void shouldNeverRetryAnotherRefusal(int status) {
        assertFalse(RetryPolicy.retryable(status, ProblemTypes.REQUEST_IN_FLIGHT));
    }

    @ParameterizedTest
    @CsvSource({"1, 100", "2, 200", "3, 400", "7, 5000", "40, 5000"})
    void shouldDrawTheWaitUpToAnExponentiallyGrowingCap(int attempt, long capMillis) {
        assertEquals(Duration.ZERO, policy.delay(attempt, Optional.empty(), 0.0));
        assertEquals(Duration.ofMillis(capMillis / 2), policy.delay(attempt, Optional.empty(), 0.5));
        assertTrue(policy.delay(attempt, Optional.empty(), 0.999).toMillis() < capMillis);
    }

    @Test
    void shouldNeverRetrySoonerThanRetryAfter() {
        assertEquals(Duration.ofSeconds(2), policy.delay(1, Optional.of(Duration.ofSeconds(2)), 0.0));
        assertEquals(Duration.ofMillis(2050), policy.delay(1, Optional.of(Duration.ofSeconds(2)), 0.5));
    }

    @Test
    void shouldReadRetryAfterInSecondsOnly() {
        assertEquals(Optional.of(Duration.ofSeconds(1)), RetryPolicy.retryAfter(Optional.of("1")));
        assertEquals(Optional.of(Duration.ZERO), RetryPolicy.retryAfter(Optional.of(" 0 ")));
        assertEquals(Optional.empty(), RetryPolicy.retryAfter(Optional.of("Wed, 21 Oct 2015 07:28:00 GMT")));
        assertEquals(Optional.empty(), RetryPolicy.retryAfter(Optional.of("-1")));
        assertEquals(Optional.empty(), RetryPolicy.retryAfter(Optional.empty()));
    }
}
