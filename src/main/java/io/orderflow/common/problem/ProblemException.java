package io.orderflow.common.problem;

/** A failure that already knows its problem; thrown where no domain exception fits. */
public class ProblemException extends RuntimeException {

    private final transient Problem problem;
    private final String retryAfter;

    public ProblemException(Problem problem) {
        this(problem, null);
    }

    public ProblemException(Problem problem, String retryAfter) {
        super(problem.detail(), null, false, false);
        this.problem = problem;
        this.retryAfter = retryAfter;
    }

    public static ProblemException of(ProblemType type, String detail) {
        return new ProblemException(Problem.of(type, detail));
    }

    public Problem problem() {
        return problem;
    }

    public String retryAfter() {
        return retryAfter;
    }
}
