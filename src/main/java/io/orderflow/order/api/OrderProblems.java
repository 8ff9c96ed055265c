package io.orderflow.order.api;

import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemTranslator;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.order.domain.AmountMismatchException;
import io.orderflow.order.domain.IllegalTransitionException;
import io.orderflow.order.domain.InvalidOrderException;
import io.orderflow.order.domain.OrderNotFoundException;
import io.orderflow.order.domain.TransitionConflictException;
import io.orderflow.order.domain.VersionMismatchException;
import jakarta.enterprise.context.ApplicationScoped;

/** The order domain's errors as problems: the domain stays plain Java, this is where they meet HTTP. */
@ApplicationScoped
public class OrderProblems implements ProblemTranslator {

    @Override
    public Problem toProblem(Throwable failure) {
        if (failure instanceof IllegalTransitionException it) {
            return Problem.of(ProblemType.ILLEGAL_TRANSITION, it.getMessage())
                    .with("currentStatus", it.current())
                    .with("event", it.event())
                    .with("allowedEvents", it.allowedEvents());
        }
        if (failure instanceof TransitionConflictException tc) {
            return Problem.of(ProblemType.TRANSITION_CONFLICT, tc.getMessage())
                    .with("event", tc.event())
                    .with("applied", tc.applied());
        }
        if (failure instanceof AmountMismatchException am) {
            return Problem.of(ProblemType.AMOUNT_MISMATCH, am.getMessage());
        }
        if (failure instanceof InvalidOrderException invalid) {
            return Problem.of(ProblemType.INVALID_REQUEST, invalid.getMessage()).with("field", invalid.field());
        }
        if (failure instanceof OrderNotFoundException) {
            return Problem.of(ProblemType.NOT_FOUND, failure.getMessage());
        }
        if (failure instanceof VersionMismatchException vm) {
            return Problem.of(ProblemType.VERSION_MISMATCH, vm.getMessage()).with("currentVersion", vm.actual());
        }
        return null;
    }
}
