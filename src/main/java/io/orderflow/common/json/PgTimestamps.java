package io.orderflow.common.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Reads a {@code timestamptz} as PostgreSQL writes it into JSON ({@code to_jsonb}: {@code
 * 2026-12-02T13:56:44.477933+00:00}, the fraction without trailing zeros or absent), without a
 * {@link DateTimeFormatter}: the write statements return whole rows as JSON, and parsing their timestamps with the
 * formatter was a fiftieth of the service's CPU on a duplicate SHIP. Any other form goes to the ISO formatter, so
 * what is accepted and what it means are the formatter's ({@code PgTimestampsTest} compares the two).
 */
public class PgTimestamps extends StdScalarDeserializer<Instant> {

    private static final int[] SCALE = { 1_000_000_000, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000,
            100, 10, 1 };

    public PgTimestamps() {
        super(Instant.class);
    }

    /**
     * A reader of the JSON of a table's rows ({@code to_jsonb}) into {@code entity}: timestamps read by this class,
     * and only the entity's columns (a statement may return a column more).
     */
    public static ObjectReader rowReader(ObjectMapper json, Class<?> entity) {
        return json.copy().registerModule(new SimpleModule("pg-timestamps").addDeserializer(Instant.class,
                new PgTimestamps())).readerFor(entity).without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    @Override
    public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        if (!p.hasToken(JsonToken.VALUE_STRING)) {
            return (Instant) ctxt.handleUnexpectedToken(Instant.class, p);
        }
        String text = p.getText();
        try {
            return parse(text);
        } catch (DateTimeException e) {
            return (Instant) ctxt.handleWeirdStringValue(Instant.class, text, e.getMessage());
        }
    }

    /** {@code text} as an instant, read like {@link DateTimeFormatter#ISO_OFFSET_DATE_TIME} reads it. */
    public static Instant parse(String text) {
        Instant fast = parsePostgresForm(text);
        return fast != null ? fast : OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    }

    /** {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}](Z|±HH:MM|±HH:MM:SS)}, or null for any other form (or an invalid date). */
    static Instant parsePostgresForm(String s) {
        int n = s.length();
        if (n < 20 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T' || s.charAt(13) != ':'
                || s.charAt(16) != ':') {
            return null;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if ((year | month | day | hour | minute | second) < 0 || hour > 23 || minute > 59 || second > 59) {
            return null;
        }
        int i = 19;
        int nanos = 0;
        if (s.charAt(i) == '.') {
            int start = ++i;
            while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                i++;
            }
            int length = i - start;
            if (length == 0 || length > 9) {
                return null;
            }
            nanos = digits(s, start, length) * SCALE[length];
        }
        Integer offset = offsetSeconds(s, i);
        if (offset == null) {
            return null;
        }
        long epochDay;
        try {
            epochDay = LocalDate.of(year, month, day).toEpochDay();
        } catch (DateTimeException e) {
            return null; // 2026-02-30: the formatter's own message says why
        }
        return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3_600 + minute * 60 + second - offset, nanos);
    }

    /** The offset that starts at {@code i} and ends the text, or null. */
    private static Integer offsetSeconds(String s, int i) {
        int rest = s.length() - i;
        if (rest == 1 && s.charAt(i) == 'Z') {
            return 0;
        }
        char sign = rest > 0 ? s.charAt(i) : ' ';
        if ((sign != '+' && sign != '-') || (rest != 6 && rest != 9) || s.charAt(i + 3) != ':'
                || (rest == 9 && s.charAt(i + 6) != ':')) {
            return null;
        }
        int hours = digits(s, i + 1, 2);
        int minutes = digits(s, i + 4, 2);
        int seconds = rest == 9 ? digits(s, i + 7, 2) : 0;
        if ((hours | minutes | seconds) < 0 || hours > 18 || minutes > 59 || seconds > 59) {
            return null;
        }
        int total = hours * 3_600 + minutes * 60 + seconds;
        return total > 18 * 3_600 ? null : sign == '-' ? -total : total;
    }

    /** The number written by {@code length} ASCII digits at {@code from}, or -1. */
    private static int digits(String s, int from, int length) {
        int value = 0;
        for (int i = from; i < from + length; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
