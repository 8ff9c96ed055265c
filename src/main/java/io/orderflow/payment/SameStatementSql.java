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
     * A write the statement names {@code name}, so that the statement's other writes may read its {@code returning}
     * rows (a data-modifying CTE cannot read another's effects on the tables, only its output).
     */
    public static SameStatementWrite named(String name, String sql, Object... pairs) {
        SameStatementWrite write = withParameters(sql, Map.of(), pairs);
        return new SameStatementWrite() {
            @Override
            public String sql(String rows) {
                return write.sql(rows);
            }

            @Override
            public Map<String, Object> parameters() {
                return write.parameters();
            }

            @Override
            public String name() {
                return name;
            }
        };
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
