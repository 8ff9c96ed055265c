package io.orderflow.payment.callbacks;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.common.Reply;
import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.order.domain.Order;
import io.orderflow.payment.spi.Acknowledgement;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.NotificationRejected;
import io.orderflow.payment.spi.PaymentProvider;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;

/**
 * Answers a notification in its provider's format, and counts the answer in
 * {@code orderflow_payments_notifications_total{provider,outcome}}: a decided outcome (whatever it is) with the
 * provider's 2xx acknowledgement, so the provider stops re-sending; a failure with the provider's refusal, 5xx only
 * when it is transient, so the provider re-sends.
 */
@ApplicationScoped
public class Acknowledgements {

    /** What the service decided about a notification, on every acknowledgement (and so in its stored record). */
    public static final String OUTCOME_HEADER = "Payment-Outcome";

    private final ProblemMapper problems;
    private final MeterRegistry registry;

    public Acknowledgements(ProblemMapper problems, MeterRegistry registry) {
        this.problems = problems;
        this.registry = registry;
    }

    Reply acknowledge(PaymentProvider provider, Notification notification, String outcome, Order order) {
        return acknowledge(provider, notification, outcome, order == null ? null : order.id(),
                order == null ? null : order.status().name());
    }

    Reply acknowledge(PaymentProvider provider, Notification notification, String outcome, UUID orderId,
            String status) {
        count(provider, outcome);
        return provider.acknowledge(new Acknowledgement(notification, outcome, orderId, status))
                .withHeader(OUTCOME_HEADER, outcome);
    }

    /** A notification that did not verify: the provider's answer to the rejection's problem. */
    Reply rejected(PaymentProvider provider, NotificationRejected rejected) {
        count(provider, "rejected");
        // a 503 (our APIv3 key cannot open what the provider signed) says when to re-send, as every 503 does
        return provider.refuse(rejected.problem(),
                rejected.problem().status() == 503 ? ProblemMapper.RETRY_AFTER_SECONDS : null);
    }

    /** A failure answered in the provider's format; a transient one (5xx) makes the provider re-send. */
    Reply refuse(PaymentProvider provider, Throwable failure) {
        Throwable cause = ProblemMapper.unwrap(failure);
        Problem problem = problems.toProblem(cause);
        if (problem.type().equals(ProblemType.REQUEST_IN_FLIGHT.uri())) {
            // another delivery of the event is being decided: transient for the provider, which re-sends on a 5xx
            problem = Problem.of(ProblemType.SERVICE_UNAVAILABLE, problem.detail());
        }
        String retryAfter = cause instanceof ProblemException pe && pe.retryAfter() != null ? pe.retryAfter()
                : problem.status() == 503 ? ProblemMapper.RETRY_AFTER_SECONDS : null;
        count(provider, problem.status() >= 500 ? "transient" : "refused");
        return provider.refuse(problem, retryAfter);
    }

    void count(PaymentProvider provider, String outcome) {
        registry.counter("orderflow.payments.notifications", "provider", provider.name(), "outcome", outcome)
                .increment();
    }
}
