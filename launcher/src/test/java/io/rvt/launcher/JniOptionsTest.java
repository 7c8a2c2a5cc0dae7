package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.jni.JniDriver;
import io.rvt.driver.jni.JniDriverBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code --driver jni}'s options, its refusals, and the configuration of its two HCAs. */
class JniOptionsTest {
    private final CommandLine cli = new CommandLine();

    @Test
    void shouldRefuseSimulatedFabricOptionsWithOneLineWhenDriverIsJni() {
        for (String[] fabric : List.of(new String[] {"--loss", "0.1"}, new String[] {"--dup", "0.1"},
                new String[] {"--reorder", "0.1"}, new String[] {"--seed", "7"}, new String[] {"--deterministic"})) {
            String[] args = new String[fabric.length + 3];
            args[0] = "pingpong";
            args[1] = "--driver";
            args[2] = "jni";
            System.arraycopy(fabric, 0, args, 3, fabric.length);
            cli.assertUsage("option " + fabric[0] + " applies to the simulated fabric, not to --driver jni", args);
        }
        assertThat(cli.out()).isEmpty();
    }

    @Test
    void shouldRefuseJniOptionsAndBadValuesWithOneLine() {
        cli.assertUsage("option --address applies to --driver jni", "devices", "--address", "127.0.0.1");
        cli.assertUsage("option --udp-port applies to --driver jni", "devices", "--udp-port", "5000");
        cli.assertUsage("option --address: 127.0.0.1 and ::1 are not of one IP family", "--driver", "jni",
                "--address", "127.0.0.1,::1");
        cli.assertUsage("option --address: '1.2.3.4,5.6.7.8,::1' names 3 addresses", "--driver", "jni",
                "--address", "1.2.3.4,5.6.7.8,::1");
        cli.assertUsage("option --address: '' is not an IP address", "--driver", "jni", "--address", ",::1");
        cli.assertUsage("option --udp-port: 65535 is not a UDP port for two HCAs", "--driver", "jni",
                "--udp-port", "65535");
        cli.assertUsage("option --driver: unknown driver 'rxe' (sim or jni)", "--driver", "rxe");
        cli.assertUsage("option --source-ports applies to --driver jni", "devices", "--source-ports", "4");
        cli.assertUsage("option --source-ports: 0 is not a number of UDP source ports (1 to 16384)", "--driver", "jni",
                "--source-ports", "0");
        cli.assertUsage("option --udp-gro applies to --driver jni", "devices", "--udp-gro", "off");
        cli.assertUsage("option --udp-gso: 'no' is not on or off", "--driver", "jni", "--udp-gso", "no");
        cli.assertUsage("option --poller-spin applies to --driver jni", "devices", "--poller-spin", "fixed");
        cli.assertUsage("option --poller-spin: 'always' is not adaptive or fixed", "--driver", "jni",
                "--poller-spin", "always");
        cli.assertUsage("option --poller-wait: -1 is not a poller's wait in microseconds (0 to 1000000; 0: never "
                + "wait)", "--driver", "jni", "--poller-wait", "-1");
    }

    @Test
    void shouldTurnUdpGsoAndGroOnOrOffInTheBuilderAndTheConfiguration() {
        JniSetup on = Options.parse("perf", "--driver", "jni", "--udp-port", "6000").jniSetup();
        JniSetup off = Options.parse("perf", "--driver", "jni", "--udp-port", "6000", "--udp-gso", "off",
                "--udp-gro", "off").jniSetup();
        assertThat(on.properties(0)).containsEntry("udp.gso", true).containsEntry("udp.gro", true);
        assertThat(off.properties(1)).containsEntry("udp.gso", false).containsEntry("udp.gro", false);
        try (JniDriver g = JniSetup.of(JniSetup.parseAddresses("127.0.0.1"), 0, 1).builder(0).build();
                JniDriver n = JniSetup.of(JniSetup.parseAddresses("127.0.0.1"), 0, 1).offloads(true, false)
                        .builder(0).build()) {
            assertThat(g.receivesCoalesced(1)).as("--udp-gro on reaches the driver").isTrue();
            assertThat(n.receivesCoalesced(1)).as("--udp-gro off reaches the driver").isFalse();
        }
    }

    @Test
    void shouldGiveThePollersWaitAndSpinToTheConfiguration() {
        JniSetup given = Options.parse("pingpong", "--driver", "jni", "--udp-port", "6000", "--poller-wait", "200",
                "--poller-spin", "adaptive").jniSetup();
        assertThat(given.properties(0)).containsEntry("poller.wait.nanos", 200_000L)
                .containsEntry("poller.spin.adaptive", true);
        assertThat(Options.parse("pingpong", "--driver", "jni", "--udp-port", "6000").jniSetup().properties(1))
                .containsEntry("poller.wait.nanos", JniDriverBuilder.DEFAULT_POLLER_WAIT_NANOS)
                .containsEntry("poller.spin.adaptive", false);
    }

    @Test
    void shouldQuoteTheCauseWhenNativeLibraryIsNotAvailable() {
        assertThatThrownBy(() -> JniSetup.requireNativeLibrary(false,
                new UnsatisfiedLinkError("no librvtjni.so for linux-aarch64")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("--driver jni: driver-jni's native library is not available: no librvtjni.so for "
                        + "linux-aarch64");
        JniSetup.requireNativeLibrary(true, null);
    }

    @Test
    void shouldGiveEachHcaTheOtherAsPeerOnConsecutivePortsWhenUdpPortIsGiven() {
        JniSetup setup = JniSetup.of(JniSetup.parseAddresses("127.0.0.1,127.0.0.2"), 6000, 4);
        assertThat(setup.udpPorts()).containsExactly(6000, 6001);
        Map<String, Object> p0 = setup.properties(0);
        assertThat(p0).containsEntry("name", "roce0").containsEntry("address", "127.0.0.1")
                .containsEntry("udp.port", 6000).containsEntry("mtu", 4096).containsEntry("source.ports", 4);
        try (JniDriver d = JniSetup.of(JniSetup.parseAddresses("127.0.0.1"), 0, 4).builder(0).build()) {
            assertThat(d.sourcePorts()).isEqualTo(4); // --source-ports reaches the driver
        }
        assertThat((String[]) p0.get("peers")).containsExactly("127.0.0.2=6001");
        assertThat((String[]) setup.properties(1).get("peers")).containsExactly("127.0.0.1=6000");
        assertThat(setup.describe()).isEqualTo("RoCEv2 over UDP on 127.0.0.1 port 6000 and 127.0.0.2 port 6001");
    }

    @Test
    void shouldRunThePortEnginesFromThePollsUnlessThreadingIsDedicated() {
        JniSetup progress = Options.parse("perf", "--driver", "jni", "--udp-port", "6000").jniSetup();
        JniSetup network = Options.parse("perf", "--driver", "jni", "--udp-port", "6000", "--threading", "dedicated")
                .jniSetup();
        assertThat(progress.threading()).isEqualTo(Threading.PROGRESS);
        assertThat(progress.properties(0)).containsEntry("threading", "progress");
        assertThat(network.threading()).isEqualTo(Threading.DEDICATED);
        assertThat(network.properties(1)).containsEntry("threading", "dedicated");
        try (JniDriver p = JniSetup.of(JniSetup.parseAddresses("127.0.0.1"), 0, 1).builder(0).build();
                JniDriver n = JniSetup.of(JniSetup.parseAddresses("127.0.0.1"), 0, 1).threading(Threading.DEDICATED)
                        .builder(0).build()) {
            assertThat(p.threading()).isEqualTo(ThreadingMode.PROGRESS);
            assertThat(n.threading()).isEqualTo(ThreadingMode.DEDICATED); // --threading dedicated reaches the driver
        }
    }

    @Test
    void shouldPickTwoDifferentFreePortsWhenNoUdpPortIsGiven() {
        JniSetup setup = JniSetup.of(JniSetup.parseAddresses("::1"), 0, 16);
        assertThat(setup.addresses()).containsExactly("::1", "::1");
        assertThat(setup.udpPorts().get(0)).isPositive().isNotEqualTo(setup.udpPorts().get(1));
        assertThat(setup.describe()).startsWith("RoCEv2 over UDP on ::1, ports ");
    }
}
