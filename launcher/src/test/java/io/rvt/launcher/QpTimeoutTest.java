package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.QpAttr;
import io.rvt.api.QueuePair;
import io.rvt.api.spi.Timeouts;
import io.rvt.driver.sim.fabric.DropRule;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricPort;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * perftest's {@code -u}/{@code --qp-timeout} on {@code rvt perf} and {@code rvt pingpong}: parsed, refused out of
 * range, carried to the server in two processes, and given to the QPs, whose retry timer then fires after that
 * period on a deterministic fabric.
 */
class QpTimeoutTest {
    /** driver-sim's frames: LRH (8 bytes), GRH (40), then the BTH. */
    private static final int BTH = 48;
    private static final int RC_SEND_ONLY = 0x04;

    private final CommandLine cli = new CommandLine();

    @Test
    void shouldReadTheAckTimeoutInShortAndLongFormWithPerftestsDefault() {
        assertThat(Options.parse("perf", "-u", "10").link().qpTimeout()).isEqualTo(10);
        assertThat(Options.parse("pingpong", "--qp-timeout=0").link().qpTimeout()).isZero();
        assertThat(Options.parse("perf", "-u31", "-c", "RC").link().qpTimeout()).isEqualTo(31);
        assertThat(Options.parse("perf").link().qpTimeout()).isEqualTo(LinkOptions.DEFAULT_QP_TIMEOUT).isEqualTo(14);
        assertThat(Options.parse("pingpong").link()).isEqualTo(LinkOptions.DEFAULT);
        assertThat(LinkOptions.timeoutNanos(14)).isEqualTo(67_108_864L); // 4.096 us x 2^14
    }

    @Test
    void shouldRefuseAnAckTimeoutOutOfRangeNamingTheValueAndTheRange() {
        cli.assertUsage("option --qp-timeout: 32 is not an ACK timeout code (0 to 31: 4.096 us x 2^N per try)",
                "perf", "-u", "32");
        cli.assertUsage("option --qp-timeout: -1 is not an ACK timeout code (0 to 31", "pingpong", "--qp-timeout",
                "-1");
        cli.assertUsage("option --qp-timeout needs a whole number, got 'ten'", "perf", "-u", "ten");
        cli.assertUsage("option --qp-timeout: UD has no ACKs to time out", "perf", "-u", "10", "-c", "UD");
        cli.assertUsage("option --qp-timeout: UC has no ACKs to time out", "pingpong", "-c", "UC", "-u", "10");
        cli.assertUsage("option --qp-timeout does not apply to 'stat'", "stat", "-u", "10");
    }

    @Test
    void shouldListTheAckTimeoutInHelp() {
        cli.reset();
        assertThat(cli.run("--help")).isZero();
        assertThat(cli.out()).contains("-u|--qp-timeout N");
    }

    @Test
    void shouldCarryAPingPongClientsAckTimeoutToTheServerWhichRefusesAnotherItWasGiven() {
        RemotePingPong.Params p = new RemotePingPong.Params(Transport.RC, 64, 10, 10, 18);
        assertThat(RemotePingPong.Params.decode(p.encode())).isEqualTo(p);

        LinkOptions server = new LinkOptions(1, 0, -1, 12);
        assertThat(LinkOptions.timeoutConflict(9, server, true))
                .isEqualTo("the client asks for -u 9, the server was started with -u 12 (the client's REQ sets both "
                        + "QPs' ACK timeout)");
        assertThat(LinkOptions.timeoutConflict(12, server, true)).isNull();
        assertThat(LinkOptions.timeoutConflict(9, LinkOptions.DEFAULT, false)).as("a server without -u").isNull();
    }

    /**
     * The first ping is lost; its resend leaves when the requester's retry timer fires, {@code -u}'s period after the
     * first try (rdmavt's rounding to timer ticks, on the fabric's virtual clock): 8 ms for -u 10, 20 ms for -u 12,
     * 69 ms for 14. Both QPs report the code.
     */
    @Test
    @Timeout(120)
    void shouldResendALostPingAfterTheQpTimeoutGiven() {
        for (int code : new int[] {10, 12, 14}) {
            try (PlainHost host = PlainHost.start(Options.parse("--deterministic", "--seed", "7").fabric())) {
                Fabric fabric = host.fabric();
                LoseFirstSend rule = new LoseFirstSend(fabric);
                fabric.dropRule(rule);
                Device a = host.devices().get(0);
                Device b = host.devices().get(1);
                try (PingPong pp = new PingPong(host, a, b, Transport.RC, 64, new LinkOptions(1, 0, -1, code),
                        Options.DEFAULT_CM_PORT)) {
                    assertThat(timeoutOf(pp.qa)).as("the requester's QP, -u %d", code).isEqualTo(code);
                    assertThat(timeoutOf(pp.qb)).as("the responder's QP, -u %d", code).isEqualTo(code);
                    pp.exchange(1);
                }
                assertThat(rule.times).as("the lost ping and its resend, -u %d", code).hasSize(2);
                int hz = fabric.timerService().hz();
                long period = Timeouts.ticksToNanos(Timeouts.timeoutToTicks(code, hz), hz);
                assertThat(rule.times.get(1) - rule.times.get(0)).as("-u %d: the retry timer's period", code)
                        .isEqualTo(period);
            }
        }
    }

    private static int timeoutOf(QueuePair qp) {
        return qp.queryQp(new QpAttr()).timeout();
    }

    /**
     * Loses the first RC SEND_ONLY (the first ping) and notes, on the fabric's virtual clock, when it and its resend
     * (the same PSN from the same port) came by.
     */
    private static final class LoseFirstSend implements DropRule {
        private final Fabric fabric;
        final List<Long> times = new ArrayList<>();
        private FabricPort from;
        private int psn = -1;

        LoseFirstSend(Fabric fabric) {
            this.fabric = fabric;
        }

        @Override
        public boolean drops(FabricPort src, FabricPort to, ByteBuffer frame) {
            if (frame.limit() < BTH + 12 || (frame.get(BTH) & 0xFF) != RC_SEND_ONLY) {
                return false;
            }
            int p = frame.getInt(BTH + 8) & 0xFF_FFFF;
            if (psn < 0) {
                from = src;
                psn = p;
                times.add(fabric.nanoTime());
                return true;
            }
            if (src == from && p == psn && times.size() == 1) {
                times.add(fabric.nanoTime());
            }
            return false;
        }
    }
}
