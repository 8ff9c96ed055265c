package io.orderflow.common.problem;

/**
 * A feature's own failures as problems. Each feature that has domain errors provides one bean; the one
 * {@link ProblemMapper} asks them all, so it still renders every problem while {@code common} knows no feature.
 */
public interface ProblemTranslator {

    /** The problem {@code failure} stands for, or null when it is not one of this feature's failures. */
    Problem toProblem(Throwable failure);
}
