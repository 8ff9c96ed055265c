package io.orderflow.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.client.generated.ApiException;
import io.orderflow.client.generated.ApiResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The retry loop every call goes through: one {@code Idempotency-Key} drawn per call (or given by the caller) and
 * sent with every attempt, so the service applies the call once however often it is sent and a repeat gets the
 * first answer.
 */
final class Calls {

    private final RetryPolicy policy;
    private final ObjectMapper mapper;
    private final Consumer<Attempt> listener;

    Calls(RetryPolicy policy, ObjectMapper mapper, Consumer<Attempt> listener) {
        this.policy = policy;
        this.mapper = mapper;
        this.listener = listener;
    }

    static String newKey() {
        return UUID.randomUUID().toString();
    }

    /** A state-changing call: every attempt carries {@code key}. */
    <T> ApiResponse<T> keyed(String operation, String key, KeyedCall<T> call) {
        return run(operation, key, call);
    }

    /** A read: retried alike, without a key. */
    <T> ApiResponse<T> read(String operation, KeyedCall<T> call) {
        return run(operation, null, call);
    }

    private <T> ApiResponse<T> run(String operation, String key, KeyedCall<T> call) {
        long deadline = System.nanoTime() + policy.deadline().toNanos();
        for (int attempt = 1; ; attempt++) {
            ApiException failure;
            try {
                return call.send(key);
            } catch (ApiException e) {
                failure = e;
            }
            if (failure.getCode() == 0 && !(failure.getCause() instanceof IOException)) {
                // interrupted (the generated code restored the flag), or a body it could not read
                throw new IllegalStateException(operation + " failed", failure);
            }
            ProblemException.Problem problem = failure.getCode() == 0 ? null
                    : Problems.read(failure.getCode(), failure.getResponseBody(), mapper);
            boolean retryable = problem == null || RetryPolicy.retryable(problem.status, problem.type);
            Optional<Duration> retryAfter = failure.getResponseHeaders() == null ? Optional.empty()
                    : RetryPolicy.retryAfter(failure.getResponseHeaders().firstValue("Retry-After"));
            Duration delay = retryable ? policy.delay(attempt, retryAfter) : null;
            if (delay != null && System.nanoTime() + delay.toNanos() > deadline) {
                delay = null;
            }
            listener.accept(new Attempt(operation, key, attempt, failure.getCode(),
                    problem == null ? null : problem.type,
                    problem == null ? String.valueOf(failure.getCause()) : problem.title, delay));
            if (delay == null) {
                throw problem == null ? new UnreachableException(operation, (IOException) failure.getCause(), key,
                        attempt) : Problems.exception(operation, problem, key, attempt);
            }
            sleep(delay, operation);
        }
    }

    private static void sleep(Duration delay, String operation) {
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(operation + " was interrupted while waiting to retry", e);
        }
    }
}
