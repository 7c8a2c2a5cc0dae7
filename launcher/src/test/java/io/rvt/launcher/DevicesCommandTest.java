package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code rvt devices} with ibv_devinfo's {@code -l}, {@code -d}, {@code -i} and its {@code fw_ver} and {@code port_lmc}. */
class DevicesCommandTest {
    private final CommandLine cli = new CommandLine();

    /** The simulated devices' names come from a JVM-wide counter: each test names those of the host it runs on. */
    private static PlainHost host() {
        return PlainHost.start(Options.parse().fabric());
    }

    @Test
    @Timeout(60)
    void shouldListOnlyTheNamesWithL() {
        try (PlainHost host = host()) {
            String a = host.devices().get(0).name();
            String b = host.devices().get(1).name();
            assertThat(cli.runOn(host, "devices", "-l")).isZero();
            assertThat(cli.out()).isEqualTo("2 HCAs found:\n\t" + a + "\n\t" + b + "\n");
        }
    }

    @Test
    @Timeout(60)
    void shouldListOneDeviceAndOnePortWithDAndI() {
        try (PlainHost host = host()) {
            String b = host.devices().get(1).name();
            assertThat(cli.runOn(host, "devices", "-d", b, "-i", "1")).isZero();
            assertThat(cli.out().split("hca_id:", -1)).hasSize(2);
            assertThat(cli.out()).startsWith("hca_id:\t" + b + "\n").contains("\t\tport:\t1\n")
                    .containsPattern("\tfw_ver:\t+\\d+\\.\\d+\\.\\d{3}\n").contains("\t\t\tport_lmc:\t\t0x00\n");
        }
        try (PlainHost host = host()) {
            String b = host.devices().get(1).name();
            cli.reset();
            assertThat(cli.runOn(host, "devices", "--ib-dev", b, "--list")).isZero();
            assertThat(cli.out()).isEqualTo("1 HCA found:\n\t" + b + "\n");
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseADeviceOrPortThatIsNotThere() {
        try (PlainHost host = host()) {
            String a = host.devices().get(0).name();
            String b = host.devices().get(1).name();
            assertThat(cli.runOn(host, "devices", "-d", "mlx5_0")).isEqualTo(Main.EXIT_USAGE);
            assertThat(cli.err()).isEqualTo("rvt: option --ib-dev: no device 'mlx5_0' (devices: " + a + ", " + b
                    + ")" + System.lineSeparator());
        }
        try (PlainHost host = host()) {
            String a = host.devices().get(0).name();
            cli.reset();
            assertThat(cli.runOn(host, "devices", "-d", a, "-i", "2")).isEqualTo(Main.EXIT_USAGE);
            assertThat(cli.err()).startsWith("rvt: option --ib-port: " + a + " has no port 2 (it has 1)");
        }
    }

    @Test
    void shouldWriteTheFirmwareVersionAsLibibverbsDoes() {
        assertThat(DevicesCommand.firmware(0x0000_0014_001F_03F6L)).isEqualTo("20.31.1014");
        assertThat(DevicesCommand.firmware(0x0000_0001_0002_0003L)).isEqualTo("1.2.003");
        assertThat(DevicesCommand.firmware(0)).isEqualTo("0.0.000");
    }

    @Test
    void shouldKeepPerfsMinusLForItsPostListAndTakeItAsDevicesList() {
        assertThat(Options.parse("devices", "-l").list).isTrue();
        Options perf = Options.parse("perf", "-l", "4", "-n", "400", "-t", "8");
        assertThat(perf.postList).isEqualTo(4);
        assertThat(perf.list).isFalse();
        cli.assertUsage("option --list takes no value, got '4'", "devices", "-l=4");
    }
}
