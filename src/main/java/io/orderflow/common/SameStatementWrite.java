package io.orderflow.common;

import java.util.Map;

/**
 * A write that must commit together with a business write, by riding in the same SQL statement as a
 * data-modifying CTE: an idempotency record, a payment attempt, a provider command. The business repository does not
 * know what it writes; it only names the relation holding the rows it just wrote ({@code rows}, with the business
 * table's columns) and appends the write.
 */
public interface SameStatementWrite {

    /**
     * A data-modifying statement ({@code insert ... select ... from <rows>}, usually) reading the business rows from
     * {@code rows}. Its named parameters carry a prefix of its own, so several writes can share one statement.
     */
    String sql(String rows);

    /** Values of the named parameters {@link #sql} uses. */
    Map<String, Object> parameters();
}
