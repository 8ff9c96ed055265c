package io.orderflow.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class LoadTest {

    @Test
    void stairsMultiplyTheRateEachLevelAndFollowTheWarmUp() {
        Load load = Load.stairs(10, 1.5, 3, 8, 5);
        assertEquals(List.of(new Load.Level(0, 10, 5, 13), new Load.Level(1, 15, 13, 21),
                new Load.Level(2, 22.5, 21, 29)), load.levels());
        assertEquals(29.0, load.seconds());
        assertEquals(4, load.injection().length, "nothing during the warm-up, then one step per level");
    }

    @Test
    void aFixedRunIsOneLevel() {
        Load load = Load.fixed(7, 25, 0);
        assertEquals(List.of(new Load.Level(0, 7, 0, 25)), load.levels());
        assertEquals(1, load.injection().length);
    }
}
