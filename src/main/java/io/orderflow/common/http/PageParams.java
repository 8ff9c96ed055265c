package io.orderflow.common.http;

import io.orderflow.common.Ids;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import java.util.UUID;

/**
 * The {@code limit} and {@code after} of a keyset-paged list, taken as text: a value JAX-RS cannot convert would
 * otherwise be answered 404, where the client deserves a 400 problem that names the parameter.
 */
public final class PageParams {

    private PageParams() {
    }

    /** {@code limit}, or {@code byDefault} when absent; 1 to {@code max}, else a 400 problem. */
    public static int size(String limit, int byDefault, int max) {
        long size = limit == null ? byDefault : QueryNumbers.parse(limit, 3);
        if (size < 1 || size > max) {
            throw ProblemException.of(ProblemType.INVALID_REQUEST, "limit must be between 1 and " + max);
        }
        return (int) size;
    }

    /** {@code after} as the id of the previous page's last item (a UUID), or null when absent; else a 400 problem. */
    public static UUID uuidAfter(String after) {
        if (after == null) {
            return null;
        }
        UUID parsed = Ids.parseOrNull(after); // only the canonical form was ever a page's next value
        if (parsed == null) {
            throw notAPage();
        }
        return parsed;
    }

    /** {@code after} as the number of the previous page's last item, 0 when absent; else a 400 problem. */
    public static long numberAfter(String after) {
        long from = after == null ? 0 : QueryNumbers.parse(after, 19);
        if (from < 0) {
            throw notAPage();
        }
        return from;
    }

    private static ProblemException notAPage() {
        return ProblemException.of(ProblemType.INVALID_REQUEST, "after must be the next value of a previous page");
    }
}
