package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The array literal a batch statement's column is bound as (GroupCommitTest sends such values to PostgreSQL). */
class PostgresArraysTest {

    @Test
    void shouldQuoteEveryValueEscapeQuotesAndBackslashesAndWriteNullBare() {
        assertEquals("{\"plain\",\"a\\\"b\",\"c\\\\d\",NULL,\"\",\"\\\"\\\\\\\"\",\"NULL\"}",
                PostgresArrays.literal(Arrays.asList("plain", "a\"b", "c\\d", null, "", "\"\\\"", "NULL")));
    }
}
