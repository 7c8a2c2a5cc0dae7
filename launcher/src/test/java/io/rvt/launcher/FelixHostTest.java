package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The commands on the default host: an embedded Felix whose driver-sim HCAs come from Config Admin. */
class FelixHostTest {
    private final CommandLine cli = new CommandLine();

    @Test
    @Timeout(120)
    void shouldServeTwoConfiguredHcasAndDeleteItsStorageWhenClosed() {
        Path storage;
        SimConfigurations sim = new SimConfigurations(Options.parse().fabric());
        try (FelixHost host = FelixHost.start(sim, Main.bundleDir(), false)) {
            assertThat(host.devices()).hasSize(2);
            assertThat(host.devices().get(0).driverName()).isEqualTo("sim0");
            assertThat(host.devices().get(1).driverName()).isEqualTo("sim1");
            assertThat(host.description()).contains("in OSGi", "Config Admin io.rvt.driver.sim", "real-time");
            storage = host.storage();
            assertThat(storage).isDirectory();
        }
        assertThat(Files.exists(storage)).isFalse();
    }

    @Test
    @Timeout(120)
    void shouldListDevicesAndPingPongThroughOsgiByDefault() {
        assertThat(cli.run("devices")).isZero();
        assertThat(cli.out().split("hca_id:", -1)).hasSize(3);
        assertThat(cli.run("pingpong", "--transport", "ud", "-n", "30", "-s", "1000")).isZero();
        assertThat(cli.out()).contains("30 iters in", "UD; every message checked", "in OSGi (Felix");
        assertThat(cli.err()).isEmpty();
    }

    @Test
    @Timeout(120)
    void shouldMeasureAndCountRetransmissionsThroughOsgiWhenFabricLosesFrames() {
        assertThat(cli.run("perf", "--test", "read", "-s", "4096", "-n", "100")).isZero();
        assertThat(cli.out()).contains("RDMA_Read BW Test", "in OSGi");
        cli.reset();
        assertThat(cli.run("stat", "--loss", "0.05", "--seed", "5", "-n", "100")).isZero();
        assertThat(cli.counter("rc_resends")).isPositive();
        assertThat(cli.out()).contains("loss 0.05");
    }

    @Test
    void shouldPutFabricOptionsIntoEachHcaConfiguration() {
        assertThat(SimConfigurations.properties(new FabricOptions(0.05, 0.01, 0.02, 42, true), "sim0", true))
                .containsEntry("name", "sim0").containsEntry("fabric", "rvt").containsEntry("deterministic", true)
                .containsEntry("seed", 42L).containsEntry("loss", 0.05).containsEntry("duplication", 0.01)
                .containsEntry("reorder", 0.02).containsEntry("threading", "dedicated").containsEntry("mtu", 4096)
                .containsEntry("idle", "spin");
        assertThat(SimConfigurations.properties(new FabricOptions(0, 0, 0, 1, false), "sim1", false))
                .containsEntry("threading", "shared").containsEntry("deterministic", false)
                .containsEntry("idle", "backoff");
        // the default: the progress hook, with a backstop that never spins
        assertThat(new SimConfigurations(new FabricOptions(0, 0, 0, 1, true)).properties(true))
                .allSatisfy(p -> assertThat(p).containsEntry("threading", "progress").containsEntry("idle", "backoff"));
    }

    @Test
    void shouldSayWhichBundleIsMissingWhenBundleDirectoryIsEmpty(@TempDir Path empty) {
        assertThatThrownBy(() -> FelixHost.start(new SimConfigurations(Options.parse().fabric()), empty, false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("bundle org.apache.felix.configadmin (felix-host.bndrun -runbundles) is missing")
                .hasMessageContaining(empty.toString());
    }

    @Test
    void shouldRefuseShellWithoutOsgi() {
        cli.assertUsage("rvt shell needs OSGi: leave out --no-osgi", "shell", "--no-osgi");
    }
}
