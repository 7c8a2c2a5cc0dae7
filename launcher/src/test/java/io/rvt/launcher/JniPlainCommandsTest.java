package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The commands with {@code --driver jni --no-osgi}: two {@code JniDriver}s built and registered by hand. */
class JniPlainCommandsTest extends JniCommandsTest {
    @Override
    List<String> hostOptions() {
        return List.of("--no-osgi");
    }

    @Override
    String hostDescription() {
        return "driver-jni (RoCEv2 over UDP on 127.0.0.1";
    }

    @Test
    @Timeout(120)
    void shouldShowTheDriversDropCountersSocketBuffersAndRcWindowWhenStatRuns() {
        assertThat(run("stat", "-n", "10")).isZero();
        assertThat(cli.counter("roce0.icrc_errors")).isZero();
        assertThat(cli.counter("roce1.malformed")).isZero();
        assertThat(cli.counter("roce1.send_errors")).isZero();
        // the granted socket buffers and the RC window derived from the receive buffer (8,448 B per 4 KiB datagram)
        assertThat(cli.counter("roce1.rcvbuf_bytes")).isPositive();
        assertThat(cli.counter("roce1.sndbuf_bytes")).isPositive();
        assertThat(cli.counter("roce1.rc_window_packets")).isPositive()
                .isLessThanOrEqualTo(cli.counter("roce1.rcvbuf_bytes") / 8448 / 2);
        assertThat(cli.counter("roce0.rc_in_flight_peak")).isLessThanOrEqualTo(cli.counter("roce0.rc_window_packets"));
        // the system calls of each port's sockets: the traffic's datagrams went through them
        assertThat(cli.counter("roce0.sendmmsg_calls")).isPositive()
                .isLessThanOrEqualTo(cli.counter("roce0.datagrams_sent"));
        assertThat(cli.counter("roce1.recvmmsg_calls")).isPositive()
                .isGreaterThanOrEqualTo(cli.counter("roce1.recvmmsg_empty"));
        assertThat(cli.counter("roce1.datagrams_received")).isPositive();
        assertThat(cli.counter("roce1.acks_sent")).isPositive()
                .isLessThanOrEqualTo(cli.counter("roce1.datagrams_sent"));
        // IPv4: never sent as GSO segments, so on loopback nothing arrives coalesced (the counters are there)
        assertThat(cli.counter("roce0.gso_segments")).isZero();
        assertThat(cli.counter("roce1.gro_segments")).isZero();
    }

    @Test
    @Timeout(120)
    void shouldPrintEachPortsSocketCallsUnderABandwidthTable() {
        assertThat(run("perf", "-s", "64", "-n", "2000")).isZero();
        assertThat(cli.out()).containsPattern(" Socket calls    : roce0 [1-9][0-9]* sendmmsg \\([0-9.]+ datagrams each\\), "
                + "[0-9]+ recvmmsg \\([0-9]+ empty, [0-9.]+ datagrams each\\), [0-9]+ ACKs sent, [0-9]+ stand-in cycles; roce1 [1-9]");
    }

    @Test
    @Timeout(120)
    void shouldPingPongOverIpv6WhenAddressIsIpv6Loopback() {
        assertThat(run("pingpong", "--address", "::1", "--transport", "ud", "-n", "30", "-s", "512")).isZero();
        assertThat(cli.out()).contains("30 iters in", "UD; every message checked",
                "GID 0000:0000:0000:0000:0000:0000:0000:0001 (roce0", "RoCEv2 over UDP on ::1, ports ");
    }

    @Test
    @Timeout(60)
    void shouldFailWithOneLineNamingTheAddressWhenItIsNotOnThisHost() {
        assertThat(run("devices", "--address", "192.0.2.1")).isEqualTo(Main.EXIT_FAILURE);
        assertThat(cli.err()).startsWith("rvt: ").contains("192.0.2.1").doesNotContain("Exception").hasLineCount(1);
    }
}
