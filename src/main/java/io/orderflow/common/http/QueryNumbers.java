package io.orderflow.common.http;

/**
 * Numbers in query parameters, taken as text by the resources: a value JAX-RS cannot convert would otherwise be
 * answered 404, where the client deserves a 400 problem that names the parameter.
 */
public final class QueryNumbers {

    private QueryNumbers() {
    }

    /** Decimal digits only (no sign, no blank), at most {@code digits} of them and a long; else -1. */
    public static long parse(String text, int digits) {
        if (text.isEmpty() || text.length() > digits || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException beyondLong) {
            return -1;
        }
    }
}
