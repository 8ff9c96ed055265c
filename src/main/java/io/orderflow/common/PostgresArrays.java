package io.orderflow.common;

import java.util.List;

/**
 * PostgreSQL arrays bound as one text parameter: the batch statements ({@code unnest}) and {@code = any(...)} lookups
 * cast it in SQL.
 */
public final class PostgresArrays {

    private PostgresArrays() {
    }

    /**
     * The values as one PostgreSQL array literal ({@code {"a",NULL,"b"}}), bound as text and cast in SQL: Hibernate
     * has no basic type for {@code String[]} after boot, and looking one up per binding threw (and caught) an
     * exception each time.
     */
    public static String literal(List<?> values) {
        StringBuilder literal = new StringBuilder("{");
        for (int i = 0; i < values.size(); i++) {
            Object value = values.get(i);
            literal.append(i == 0 ? "" : ",");
            if (value == null) {
                literal.append("NULL");
                continue;
            }
            literal.append('"');
            String text = value.toString();
            // copied in runs between the characters to escape, found by indexOf (vectorised), not char by char
            int from = 0;
            int quote = text.indexOf('"');
            int backslash = text.indexOf('\\');
            while (quote >= 0 || backslash >= 0) {
                int next = quote < 0 ? backslash : backslash < 0 ? quote : Math.min(quote, backslash);
                literal.append(text, from, next).append('\\');
                from = next; // the escaped character starts the next run
                if (next == quote) {
                    quote = text.indexOf('"', next + 1);
                } else {
                    backslash = text.indexOf('\\', next + 1);
                }
            }
            literal.append(text, from, text.length());
            literal.append('"');
        }
        return literal.append('}').toString();
    }
}
