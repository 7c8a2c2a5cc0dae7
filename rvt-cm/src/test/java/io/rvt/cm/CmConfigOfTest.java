package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.Fabric;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link CmConfig#of(Device)}: on a deterministic driver-sim fabric the CM's seed comes from the fabric's seed and the
 * LID of the device's port 1, so two CMs of one fabric differ, a rerun in the same JVM replays, and so does one whose
 * devices have other names (RvtFelixIT's replay).
 */
class CmConfigOfTest {
    private static final AtomicInteger FABRICS = new AtomicInteger();

    /** The seeds CmConfig.of gives HCAs {@code names} on a new deterministic fabric with {@code seed}. */
    private static long[] seeds(long seed, String... names) {
        long[] seeds = new long[names.length];
        try (Fabric f = Fabric.builder("cm-config-" + FABRICS.incrementAndGet()).deterministic(seed).build()) {
            RvtDevice[] devs = new RvtDevice[names.length];
            for (int i = 0; i < names.length; i++) {
                devs[i] = RvtDevice.register(SimDriver.builder(f).name(names[i]).build());
                CmConfig c = CmConfig.of(devs[i]);
                assertThat(c.isSeeded()).isTrue();
                assertThat(c.timerService()).isSameAs(devs[i].timerService());
                seeds[i] = c.seed();
            }
            for (RvtDevice d : devs) {
                d.unregister();
            }
        }
        return seeds;
    }

    @Test
    void shouldSeedTwoCmsOfOneFabricApartAndAlikeWhenTheProgramRunsAgain() {
        long[] first = seeds(11, "hca0", "hca1");
        seeds(11, "other"); // devices made in between change nothing
        long[] again = seeds(11, "hca0", "hca1");

        assertThat(first[0]).isNotEqualTo(first[1]);
        assertThat(again).containsExactly(first);
        assertThat(seeds(11, "other0", "other1")).as("other names").containsExactly(first);
        assertThat(seeds(12, "hca0")[0]).isNotEqualTo(first[0]);
    }

    @Test
    void shouldKeepTheDefaultsWhenTheFabricRunsInRealTime() {
        try (Fabric f = Fabric.builder("cm-config-" + FABRICS.incrementAndGet()).realTime().build()) {
            RvtDevice d = RvtDevice.register(SimDriver.builder(f).name("rt").build());
            try {
                assertThat(CmConfig.of(d)).isSameAs(CmConfig.defaults());
            } finally {
                d.unregister();
            }
        }
    }
}
