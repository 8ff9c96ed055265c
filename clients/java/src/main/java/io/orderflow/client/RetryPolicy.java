package io.orderflow.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When a call is sent again, and after how long. Retried: no answer (connection refused or cut, a timeout), 429,
 * 502, 503 and 504 (overload, a proxy without its upstream), and 409 {@code request-in-flight}; never another 4xx,
 * nor a 500 (a defect answers the same again). The wait is "full jitter" (a random time up to an exponentially
 * growing cap, AWS's recommendation: retries of many clients spread out instead of arriving in waves); when the
 * service sends {@code Retry-After}, never sooner than that, plus the jitter. No retry would end past the deadline:
 * the call fails then with the last answer.
 */
public final class RetryPolicy {

    private final Duration deadline;
    private final Duration baseDelay;
    private final Duration maxDelay;

    private RetryPolicy(Duration deadline, Duration baseDelay, Duration maxDelay) {
        this.deadline = Objects.requireNonNull(deadline);
        this.baseDelay = Objects.requireNonNull(baseDelay);
        this.maxDelay = Objects.requireNonNull(maxDelay);
    }

    /** 30 s in all, the first wait up to 100 ms, none longer than 5 s. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(Duration.ofSeconds(30), Duration.ofMillis(100), Duration.ofSeconds(5));
    }

    /** No retry at all: the first answer is the call's. */
    public static RetryPolicy none() {
        return new RetryPolicy(Duration.ZERO, Duration.ZERO, Duration.ZERO);
    }

    /** How long a call may go on retrying, from its first attempt. */
    public RetryPolicy withDeadline(Duration deadline) {
        return new RetryPolicy(deadline, baseDelay, maxDelay);
    }

    /** The jitter's cap: {@code base × 2^(attempt-1)}, at most {@code max}. */
    public RetryPolicy withDelays(Duration base, Duration max) {
        return new RetryPolicy(deadline, base, max);
    }

    public Duration deadline() {
        return deadline;
    }

    /** Whether an answer with this status (and problem type, if any) is worth sending again. */
    static boolean retryable(int status, String problemType) {
        return status == 429 || status == 502 || status == 503 || status == 504
                || (status == 409 && ProblemTypes.REQUEST_IN_FLIGHT.equals(problemType));
    }

    /** The wait before attempt {@code attempt + 1}; {@code retryAfter} is the service's, when it sent one. */
    Duration delay(int attempt, Optional<Duration> retryAfter, double random) {
        long cap = Math.min(maxDelay.toMillis(), baseDelay.toMillis() << Math.min(attempt - 1, 20));
        Duration jitter = Duration.ofMillis((long) (random * cap));
        return retryAfter.map(floor -> floor.plus(jitter)).orElse(jitter);
    }

    Duration delay(int attempt, Optional<Duration> retryAfter) {
        return delay(attempt, retryAfter, ThreadLocalRandom.current().nextDouble());
    }

    /** {@code Retry-After} in seconds (the service's form); an HTTP date or garbage counts as absent. */
    static Optional<Duration> retryAfter(Optional<String> header) {
        return header.map(String::trim).filter(v -> v.matches("\\d{1,9}")).map(v -> Duration.ofSeconds(Long.parseLong(v)));
    }
}
