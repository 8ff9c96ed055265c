package io.orderflow.order.domain;

/** Input that cannot become an order or a transition; {@code field} points at the offending part. */
public class InvalidOrderException extends RuntimeException {

    private final String field;

    public InvalidOrderException(String field, String message) {
        super(field + " " + message);
        this.field = field;
    }

    public String field() {
        return field;
    }

    static void require(boolean condition, String field, String message) {
        if (!condition) {
            throw new InvalidOrderException(field, message);
        }
    }
}
