package io.orderflow.common.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The fast reading of PostgreSQL's JSON timestamps means exactly what the ISO formatter reads, and refuses alike. */
class PgTimestampsTest {

    private static final String[] OFFSETS = { "+00:00", "Z", "+05:30", "-08:00", "+14:00", "-03:30", "+05:45:30",
            "+18:00", "-18:00", "+19:00", "+05", "+0530", "z", "+05:60", "" };

    /** Seeded: timestamps as PostgreSQL writes them (trailing zeros of the fraction dropped), and near misses. */
    static Stream<String> texts() {
        Random random = new Random(20261202);
        Stream<String> generated = IntStream.range(0, 1_000).mapToObj(i -> {
            long second = random.nextLong(-2_000_000_000L, 8_000_000_000L);
            int micros = random.nextInt(4) == 0 ? 0 : random.nextInt(1_000_000);
            String text = OffsetDateTime.ofInstant(Instant.ofEpochSecond(second, micros * 1_000L),
                    ZoneOffset.UTC).toLocalDateTime().toString();
            String offset = OFFSETS[random.nextInt(OFFSETS.length)];
            return switch (random.nextInt(8)) {
                case 0 -> text.replace('T', 't') + offset;
                case 1 -> text.substring(0, text.length() - 1) + "x" + offset; // a letter for a digit
                case 2 -> text.replace("-", "/") + offset;
                default -> text + offset;
            };
        });
        return Stream.concat(Stream.of("2026-12-02T13:56:44.477933+00:00", "2026-12-02T13:56:44+00:00",
                "2026-12-02T13:56:44.4+00:00", "2024-02-29T23:59:59.999999-05:00", "2026-02-29T00:00:00+00:00",
                "2026-04-31T00:00:00+00:00", "2026-12-02T24:00:00+00:00", "2026-12-02T13:60:00+00:00",
                "2026-12-02T13:56:44.+00:00", "2026-12-02T13:56:44.1234567891+00:00",
                "2026-12-02T13:56:44.123456789Z", "2026-12-02T13:56+00:00", "+12026-12-02T13:56:44+00:00",
                "infinity", "", "2026-12-02T13:56:44+00:00 BC", "2026-12-02T13:56:44.477933+00:00x"), generated);
    }

    @ParameterizedTest
    @MethodSource("texts")
    void shouldReadEveryTextAsTheIsoFormatterReadsItOrRefuseItLikeTheFormatter(String text) {
        Instant expected;
        try {
            expected = OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        } catch (DateTimeParseException e) {
            assertThrows(DateTimeParseException.class, () -> PgTimestamps.parse(text), text);
            return;
        }
        assertEquals(expected, PgTimestamps.parse(text), text);
    }

    @ParameterizedTest
    @ValueSource(strings = { "2026-12-02T13:56:44.477933+00:00", "2026-12-02T13:56:44+00:00",
            "1999-01-01T00:00:00.5-08:00", "2026-12-02T13:56:44.123456789Z" })
    void shouldReadPostgresOwnFormWithoutTheFormatter(String text) {
        assertNotNull(PgTimestamps.parsePostgresForm(text), "the fast path read " + text);
    }
}
