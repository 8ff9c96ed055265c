package io.orderflow.payment;

import io.orderflow.common.SameStatementWrite;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/** Builds the payment module's {@link SameStatementWrite}s: SQL that names the moved rows with {@code %s}. */
public final class SameStatementSql {

    private SameStatementSql() {
    }

    /** A write whose SQL names the moved rows with {@code %s}; parameters as name, value pairs. */
    public static SameStatementWrite of(String sql, Object... pairs) {
        return withParameters(sql, Map.of(), pairs);
    }

    /**
     * {@code write} (a refund's event, say) reading its rows from {@code relation}, SQL that names the moved rows with
     * {@code %s}; the relation's parameters as name, value pairs.
     */
    public static SameStatementWrite reading(SameStatementWrite write, String relation, Object... pairs) {
        return withParameters(write.sql(relation), write.parameters(), pairs);
    }

    private static SameStatementWrite withParameters(String sql, Map<String, Object> given, Object... pairs) {
        Map<String, Object> params = new HashMap<>(given);
        for (int i = 0; i < pairs.length; i += 2) {
            params.put((String) pairs[i], pairs[i + 1]);
        }
        Map<String, Object> frozen = Collections.unmodifiableMap(params);
        return new SameStatementWrite() {
            @Override
            public String sql(String rows) {
                return sql.formatted(rows);
            }

            @Override
            public Map<String, Object> parameters() {
                return frozen;
            }
        };
    }
}
