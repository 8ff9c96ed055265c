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

    /**
     * The name of the CTE this write is in the statement, for another write of the same statement to read its
     * {@code returning} rows; null (the statement names it) when none does.
     */
    default String name() {
        return null;
    }

    /**
     * The same write for many business rows at once (a group commit), or null when it cannot ride in one. It reads
     * the rows written from {@code rows} and each row's values of {@link #parameters} from {@code values}: a relation
     * with a column per parameter, named and typed as {@link #parameterTypes} says, and {@code id}, the business
     * row's id, on which the two join.
     */
    default String batchSql(String rows, String values) {
        return null;
    }

    /** The SQL type of each of {@link #parameters}, for {@link #batchSql}'s {@code values} relation. */
    default Map<String, String> parameterTypes() {
        return Map.of();
    }
}
