package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.spi.DriverRegistry;
import io.rvt.driver.sim.fabric.Fabric;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Node GUIDs (and so GIDs) come from the fabric's seed and the HCA's name, not from the order in which a JVM made
 * HCAs: the same program gives the same GIDs in every run, also a second time in one JVM; two HCAs on one fabric never
 * share one.
 */
class SimNodeGuidTest {
    private static final AtomicInteger FABRICS = new AtomicInteger();

    private static Fabric fabric(long seed) {
        return Fabric.builder("guids-" + FABRICS.incrementAndGet()).deterministic(seed).build();
    }

    /** The GIDs of HCAs {@code names} on a new fabric with {@code seed}, registered in order (port 1, then 2). */
    private static List<Gid> gids(long seed, String... names) {
        List<Gid> gids = new ArrayList<>();
        try (Fabric f = fabric(seed); DriverRegistry rvt = DriverRegistry.create()) {
            for (String n : names) {
                Device d = rvt.register(SimDriver.builder(f).name(n).ports(2).build());
                gids.add(d.queryGid(1, 0));
                gids.add(d.queryGid(2, 0));
                assertThat(d.queryGid(1, 0).interfaceId()).isEqualTo(d.queryDevice().nodeGuid() + 1);
            }
        }
        return gids;
    }

    @Test
    void shouldGiveTheSameGidsWhenTheSameProgramRunsAgainInOneJvm() {
        List<Gid> first = gids(11, "a", "b", "sim%d", "sim%d");
        gids(11, "other", "b", "a"); // HCAs made in between change nothing
        List<Gid> again = gids(11, "a", "b", "sim%d", "sim%d");

        assertThat(again).isEqualTo(first);
    }

    @Test
    void shouldGiveOtherGidsWhenTheSeedOrTheNameDiffers() {
        assertThat(gids(11, "a")).doesNotContainAnyElementsOf(gids(12, "a"));
        assertThat(gids(11, "a")).doesNotContainAnyElementsOf(gids(11, "b"));
    }

    @Test
    void shouldKeepGidsUniqueWhenHcasOfOneNameShareAFabric() {
        List<Gid> gids = gids(11, "sim%d", "sim%d", "sim%d", "x");

        assertThat(new HashSet<>(gids)).hasSize(gids.size());
    }

    @Test
    void shouldKeepGidsUniqueWhenManyHcasAreMadeAtOnce() throws Exception {
        try (Fabric f = fabric(11); DriverRegistry rvt = DriverRegistry.create()) {
            List<Thread> threads = new ArrayList<>();
            Set<Long> guids = java.util.concurrent.ConcurrentHashMap.newKeySet();
            for (int t = 0; t < 4; t++) {
                threads.add(new Thread(() -> {
                    for (int i = 0; i < 8; i++) {
                        SimDriver d = SimDriver.builder(f).name("same").build();
                        guids.add(d.fabricPort(1).guid());
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            assertThat(guids).hasSize(32);
        }
    }

    @Test
    void shouldGiveTheSameGidBackWhenAnHcaIsMadeAgainOnItsFabric() {
        try (Fabric f = fabric(11); DriverRegistry rvt = DriverRegistry.create()) {
            Device first = rvt.register(SimDriver.builder(f).name("sim%d").build());
            Gid gid = first.queryGid(1, 0);
            rvt.remove(first); // a bundle restart: the HCA goes, and one of its configuration comes back
            Device again = rvt.register(SimDriver.builder(f).name("sim%d").build());

            assertThat(again.queryGid(1, 0)).isEqualTo(gid);
        }
    }

    @Test
    void shouldTakeTheGivenNodeGuidWhenOneIsSet() {
        try (Fabric f = fabric(11); DriverRegistry rvt = DriverRegistry.create()) {
            Device d = rvt.register(SimDriver.builder(f).name("a").nodeGuid(0x0052_5654_00AB_0000L).build());

            assertThat(d.queryDevice().nodeGuid()).isEqualTo(0x0052_5654_00AB_0000L);
            assertThat(d.queryGid(1, 0)).isEqualTo(Gid.of(Fabric.DEFAULT_GID_PREFIX, 0x0052_5654_00AB_0001L));
        }
    }
}
