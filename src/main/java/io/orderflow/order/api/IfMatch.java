package io.orderflow.order.api;

import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;

/** Reads the version out of an If-Match header ({@code "3"}, {@code W/"3"} or {@code *}). */
final class IfMatch {

    private IfMatch() {
    }

    /** The version demanded, or null when the header is absent or {@code *}. */
    static Long version(String header) {
        if (header == null || header.isBlank() || header.trim().equals("*")) {
            return null;
        }
        String tag = header.trim();
        if (tag.startsWith("W/")) {
            tag = tag.substring(2);
        }
        if (tag.length() >= 2 && tag.startsWith("\"") && tag.endsWith("\"")) {
            tag = tag.substring(1, tag.length() - 1);
        }
        try {
            long version = Long.parseLong(tag);
            if (version >= 0) {
                return version;
            }
        } catch (NumberFormatException e) {
            // fall through to the problem below
        }
        throw ProblemException.of(ProblemType.INVALID_REQUEST, "If-Match must be an ETag of this API, e.g. \"3\"");
    }
}
