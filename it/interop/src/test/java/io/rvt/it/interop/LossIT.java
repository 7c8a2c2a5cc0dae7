package io.rvt.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.it.interop.tools.Rping;
import io.rvt.it.interop.tools.Ucmatose;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RC between rvt and rxe under {@value #PERCENT} % random loss of the RoCEv2 packets (nftables in the peer's
 * namespace, both ways: data, ACKs, NAKs and the CM's MADs alike; {@link Loss}), either side the server: rping's
 * SEND, RDMA READ and RDMA WRITE of 65535 bytes ({@value #PINGS} pings, every byte compared) over IPv4 and IPv6, and
 * ucmatose's multi-packet SENDs on two connections over IPv4. Both sides must succeed with every byte right, each
 * having retransmitted what was lost (rvt's {@code rc_resends}, rxe's {@code completer_retry_err}), and neither may
 * give up ({@code retry_exceeded_err}), see an RNR or fail a transmission; the packets rxe accepted are at most those
 * rvt sent, and driver-jni still saw no ICRC error and nothing malformed.
 */
@ExtendWith(LinuxPeerExtension.class)
class LossIT {
    static final int PERCENT = 2;
    static final int PINGS = 5;
    static final int SIZE = 65535;
    /** How often a case runs at most while the random loss drops nothing. */
    static final int ATTEMPTS = 3;

    @ParameterizedTest
    @ValueSource(strings = {"IPv4", "IPv6"})
    void shouldServeRpingUnderLoss(String family, LinuxPeer peer) throws Exception {
        InteropCase c = new InteropCase(peer, "rping", family, rpingBudget());
        underLoss(peer, () -> c.rvtServes(Rping.class, List.of("-s", "-a", c.host().getHostAddress(), "-C",
                Integer.toString(PINGS), "-S", Integer.toString(SIZE)), "rping", "-c", "-a",
                c.host().getHostAddress(), "-C", Integer.toString(PINGS), "-S", Integer.toString(SIZE), "-V"),
                (o, loss) -> {
                    c.check(o, loss, "RC (rdma_cm): SEND, READ, WRITE", rpingWhat(), "LossIT");
                    assertThat(o.rvt().number("pings")).isEqualTo(PINGS);
                    assertThat(o.guest().output()).doesNotContain("mismatch").doesNotContain("error");
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"IPv4", "IPv6"})
    void shouldPingRpingUnderLoss(String family, LinuxPeer peer) throws Exception {
        InteropCase c = new InteropCase(peer, "rping", family, rpingBudget());
        underLoss(peer, () -> c.rvtConnects(7174, Rping.class, List.of("-c", "-a", c.guest().getHostAddress(),
                "-C", Integer.toString(PINGS), "-S", Integer.toString(SIZE), "-V"), "rping", "-s", "-a",
                c.guest().getHostAddress(), "-C", Integer.toString(PINGS), "-S", Integer.toString(SIZE), "-V"),
                (o, loss) -> {
                    c.check(o, loss, "RC (rdma_cm): SEND, READ, WRITE", rpingWhat(), "LossIT");
                    assertThat(o.rvt().number("bytes_checked")).isEqualTo((long) PINGS * SIZE);
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"rvt serves", "rvt connects"})
    void shouldExchangeUcmatosesMessagesUnderLoss(String direction, LinuxPeer peer) throws Exception {
        InteropCase c = new InteropCase(peer, "ucmatose", "IPv4", UcmatoseUdaddyIT.rcBudget().multipliedBy(2));
        underLoss(peer, () -> direction.equals("rvt serves")
                ? c.rvtServes(Ucmatose.class, UcmatoseUdaddyIT.join(List.of("-b", c.host().getHostAddress()),
                        UcmatoseUdaddyIT.rc()), UcmatoseUdaddyIT.cmd("ucmatose", "-s", c.host().getHostAddress(),
                        UcmatoseUdaddyIT.rc()))
                : c.rvtConnects(7471, Ucmatose.class, UcmatoseUdaddyIT.join(List.of("-s",
                        c.guest().getHostAddress()), UcmatoseUdaddyIT.rc()), UcmatoseUdaddyIT.cmd("ucmatose", "-b",
                        c.guest().getHostAddress(), UcmatoseUdaddyIT.rc())),
                (o, loss) -> {
                    c.check(o, loss, "RC (rdma_cm)", UcmatoseUdaddyIT.rcWhat() + ", " + PERCENT + " % loss",
                            "LossIT");
                    assertThat(o.rvt().number("messages_each_way")).isEqualTo(UcmatoseUdaddyIT.CONNECTIONS
                            * UcmatoseUdaddyIT.COUNT);
                });
    }

    /** A case's run: both tools, under the loss. */
    @FunctionalInterface
    interface Run {
        InteropCase.Outcome run() throws Exception;
    }

    /** A case's checks of its outcome and the loss it ran under. */
    @FunctionalInterface
    interface Checks {
        void check(InteropCase.Outcome o, Loss loss) throws Exception;
    }

    /**
     * Runs a case under {@value #PERCENT} % loss and checks it, running it again (at most {@value #ATTEMPTS} times in
     * all) while the loss dropped nothing: such a run tested no recovery (ucmatose's ~190 packets miss a 2 % loss
     * 2 % of the time; seen once beside two CPU hogs), and its check would fail on that alone.
     */
    private static void underLoss(LinuxPeer peer, Run run, Checks checks) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try (Loss loss = peer.loss(PERCENT)) {
                InteropCase.Outcome o = run.run();
                if (loss.dropped() == 0 && attempt < ATTEMPTS) {
                    continue;
                }
                checks.check(o, loss);
                return;
            }
        }
    }

    /** Twice the loss-free budget: each lost tail costs an ACK timeout (rvt's 1.07 s, rxe's about 2 s). */
    private static Duration rpingBudget() {
        return RpingIT.budget(SIZE).multipliedBy(2);
    }

    private static String rpingWhat() {
        return PINGS + " pings of " + SIZE + " B, -V, " + PERCENT + " % loss";
    }
}
