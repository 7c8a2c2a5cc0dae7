package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fabric's backpressure count is the sum of its ports', as {@link Counters} says of every fabric value. */
class BackpressureCountersTest {
    private Fabric fabric;

    @AfterEach
    void tearDown() {
        fabric.close();
    }

    @Test
    void shouldSumThePortsBackpressureInTheFabricsCounters() {
        fabric = Fabric.builder("backpressure-sum").deterministic(3).build();
        FabricPort a = fabric.newPort().pool(2, 256, 0, false).attach();
        FabricPort b = fabric.newPort().pool(1, 256, 0, false).attach();
        List<Frame> held = new ArrayList<>();
        for (FabricPort p : List.of(a, b)) {
            for (Frame f; (f = p.acquire()) != null;) {
                held.add(f);
            }
        }
        a.acquire();
        b.acquire();
        b.acquire();

        assertThat(a.counters().backpressure()).isEqualTo(2); // the empty tries that ended each loop, plus one
        assertThat(b.counters().backpressure()).isEqualTo(3);
        assertThat(fabric.counters().backpressure()).isEqualTo(5);
        held.forEach(Frame::release);
    }
}
