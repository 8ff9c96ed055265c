package io.orderflow.order.domain;

/** If-Match named a version the order is no longer (or never was) at. */
public class VersionMismatchException extends RuntimeException {

    private final long expected;
    private final long actual;

    public VersionMismatchException(long expected, long actual) {
        super("If-Match expected version " + expected + " but the order is at version " + actual);
        this.expected = expected;
        this.actual = actual;
    }

    public long expected() {
        return expected;
    }

    public long actual() {
        return actual;
    }
}
