package io.orderflow.payment.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Full jitter: a try's wait is drawn between zero and a ceiling that grows threefold per try up to the cap, so
 * commands that failed together do not come back together.
 */
class RetryBackoffTest {

    private static final Duration BASE = Duration.ofSeconds(1);
    private static final Duration CAP = Duration.ofMinutes(10);

    @Test
    void shouldDrawTheWholeRangeFromZeroToTheCeilingOfEachTry() {
        // the ceiling: 1 s, 3 s, 9 s, 27 s ... 6561 s capped at 600 s
        List<Long> ceilings = List.of(1_000L, 3_000L, 9_000L, 27_000L, 81_000L, 243_000L, 600_000L, 600_000L);
        for (int tries = 1; tries <= ceilings.size(); tries++) {
            long ceiling = ceilings.get(tries - 1);
            assertEquals(Duration.ZERO, RetryBackoff.after(BASE, CAP, tries, () -> 0.0), "try " + tries);
            assertEquals(Duration.ofMillis(ceiling / 2), RetryBackoff.after(BASE, CAP, tries, () -> 0.5),
                    "try " + tries);
            assertEquals(Duration.ofMillis(ceiling), RetryBackoff.after(BASE, CAP, tries, () -> Math.nextDown(1.0)),
                    "try " + tries);
        }
    }

    @Test
    void shouldSpreadCommandsThatFailedTogether() {
        double[] draws = {0.05, 0.35, 0.65, 0.95};
        List<Duration> waits = Arrays.stream(draws)
                .mapToObj(draw -> RetryBackoff.after(BASE, CAP, 3, () -> draw)).toList();
        assertEquals(List.of(Duration.ofMillis(450), Duration.ofMillis(3150), Duration.ofMillis(5850),
                Duration.ofMillis(8550)), waits, "four commands of one failed pass, one ceiling of 9 s");
    }

    @Test
    void shouldStayAtTheCapFarPastIt() {
        assertEquals(CAP, RetryBackoff.after(BASE, CAP, 1_000, () -> Math.nextDown(1.0)));
        assertEquals(Duration.ZERO, RetryBackoff.after(BASE, CAP, 0, () -> 0.0), "a command never tried");
    }
}
