package io.orderflow.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class LoadTest {

    @Test
    void stairsMultiplyTheRateEachLevelAndFollowOneAnother() {
        List<Load.Level> levels = Load.stairs(10, 1.5, 3, 8).levels();
        assertEquals(List.of(new Load.Level(0, 10, 0, 8), new Load.Level(1, 15, 8, 16), new Load.Level(2, 22.5, 16, 24)),
                levels);
        assertEquals(24.0, Load.stairs(10, 1.5, 3, 8).seconds());
    }

    @Test
    void aFixedRunIsOneLevel() {
        Load load = Load.fixed(7, 25);
        assertEquals(List.of(new Load.Level(0, 7, 0, 25)), load.levels());
        assertEquals(1, load.injection().length);
    }
}
