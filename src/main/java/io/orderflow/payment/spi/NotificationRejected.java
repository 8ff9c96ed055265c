package io.orderflow.payment.spi;

import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemType;

/**
 * A notification that cannot be verified: the signature is missing, wrong or stale, or the body is not what the
 * signature scheme needs. Nothing is parsed or recorded; the provider gets its documented 4xx.
 */
public class NotificationRejected extends RuntimeException {

    private final transient Problem problem;

    public NotificationRejected(ProblemType type, String detail) {
        super(detail, null, false, false);
        this.problem = Problem.of(type, detail);
    }

    public Problem problem() {
        return problem;
    }
}
