package io.rvt.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.it.interop.tools.Ucmatose;
import io.rvt.it.interop.tools.Udaddy;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * librdmacm's {@code ucmatose} and {@code udaddy} against rvt's ({@link Ucmatose}, {@link Udaddy}), either side the
 * server, over IPv4 and IPv6. ucmatose: {@value #CONNECTIONS} RC connections at once, {@value #COUNT} SENDs of
 * {@value #RC_SIZE} bytes each way on each (8 packets each at rxe's 1024-byte MTU). udaddy: UD through SIDR in
 * rdma_cm's UDP port space, {@value #CONNECTIONS} UD QPs resolved by the client, {@value #COUNT} datagrams of
 * {@value #UD_SIZE} bytes (the active MTU, udaddy's largest) each way on each, with immediate data (the sender's QPN)
 * and a GRH. The guest's servers are bound to its address ({@code -b}).
 */
@ExtendWith(LinuxPeerExtension.class)
class UcmatoseUdaddyIT {
    static final int CONNECTIONS = 2;
    static final int COUNT = 5;
    static final int RC_SIZE = 8192;
    static final int UD_SIZE = 1024;

    @ParameterizedTest
    @ValueSource(strings = {"IPv4", "IPv6"})
    void shouldServeUcmatose(String family, LinuxPeer peer) throws Exception {
        InteropCase c = new InteropCase(peer, "ucmatose", family, rcBudget());
        InteropCase.Outcome o = c.rvtServes(Ucmatose.class, join(List.of("-b", c.host().getHostAddress()), rc()),
                cmd("ucmatose", "-s", c.host().getHostAddress(), rc()));
        c.check(o, null, "RC (rdma_cm)", rcWhat(), "UcmatoseUdaddyIT");
        assertThat(o.rvt().number("messages_each_way")).isEqualTo(CONNECTIONS * COUNT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"IPv4", "IPv6"})
    void shouldConnectToUcmatose(String family, LinuxPeer peer) throws Exception {
        InteropCase c = new InteropCase(peer, "ucmatose", family, rcBudget());
        InteropCase.Outcome o = c.rvtConnects(7471, Ucmatose.class, join(List.of("-s", c.guest().getHostAddress()),
                rc()), cmd("ucmatose", "-b", c.guest().getHostAddress(), rc()));
        c.check(o, null, "RC (rdma_cm)", rcWhat(), "UcmatoseUdaddyIT");
        assertThat(o.rvt().number("messages_each_way")).isEqualTo(CONNECTIONS * COUNT);
    }

    /**
     * What rvt-cm does not have, met from Linux: ucmatose's {@code -P ib} sends its REQ in RDMA_PS_IB (service ID
     * 0x013F &lt;&lt; 16 | port), which finds no listener on rvt; rvt-cm rejects it with INVALID_SERVICE_ID (8), which
     * the tool reports ({@code RDMA_CM_EVENT_REJECTED, error: 8}), and rvt's server then serves the next client, in
     * RDMA_PS_TCP.
     */
    @org.junit.jupiter.api.Test
    void shouldRejectAnIbPortSpaceRequestAndServeTheNextClient(LinuxPeer peer) throws Exception {
        InteropCase c = new InteropCase(peer, "ucmatose", "IPv4", rcBudget());
        String host = c.host().getHostAddress();
        InteropCase.Outcome o = c.rvtServes(Ucmatose.class, join(List.of("-b", host), rc()), "bash", "-c",
                "ucmatose -P ib -s " + host + " -C 1; echo ib-status=$?; " + String.join(" ", cmd("ucmatose", "-s",
                        host, rc())));
        c.check(o, null, "RC (rdma_cm)", "-P ib refused (REJ 8), then " + rcWhat(), "UcmatoseUdaddyIT");
        assertThat(o.guest().output()).contains("RDMA_CM_EVENT_REJECTED, error: 8").contains("ib-status=8");
        assertThat(o.rvt().number("messages_each_way")).isEqualTo(CONNECTIONS * COUNT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"IPv4", "IPv6"})
    void shouldServeUdaddy(String family, LinuxPeer peer) throws Exception {
        InteropCase c = new InteropCase(peer, "udaddy", family, udBudget());
        InteropCase.Outcome o = c.rvtServes(Udaddy.class, join(List.of("-b", c.host().getHostAddress()), ud()),
                cmd("udaddy", "-s", c.host().getHostAddress(), ud()));
        c.check(o, null, "UD (SIDR)", udWhat(), "UcmatoseUdaddyIT");
        assertThat(o.rvt().number("messages_each_way")).isEqualTo(CONNECTIONS * COUNT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"IPv4", "IPv6"})
    void shouldResolveUdaddy(String family, LinuxPeer peer) throws Exception {
        InteropCase c = new InteropCase(peer, "udaddy", family, udBudget());
        InteropCase.Outcome o = c.rvtConnects(7174, Udaddy.class, join(List.of("-s", c.guest().getHostAddress()),
                ud()), cmd("udaddy", "-b", c.guest().getHostAddress(), ud()));
        c.check(o, null, "UD (SIDR)", udWhat(), "UcmatoseUdaddyIT");
        assertThat(o.rvt().number("messages_each_way")).isEqualTo(CONNECTIONS * COUNT);
    }

    static List<String> rc() {
        return List.of("-c", Integer.toString(CONNECTIONS), "-C", Integer.toString(COUNT), "-S",
                Integer.toString(RC_SIZE));
    }

    private static List<String> ud() {
        return List.of("-c", Integer.toString(CONNECTIONS), "-C", Integer.toString(COUNT), "-S",
                Integer.toString(UD_SIZE));
    }

    static java.time.Duration rcBudget() {
        return InteropCase.budget(2 * CONNECTIONS * COUNT, 2L * CONNECTIONS * COUNT * RC_SIZE);
    }

    private static java.time.Duration udBudget() {
        return InteropCase.budget(2 * CONNECTIONS * COUNT, 2L * CONNECTIONS * COUNT * UD_SIZE);
    }

    static String rcWhat() {
        return CONNECTIONS + " connections, " + COUNT + " SENDs of " + RC_SIZE + " B each way on each";
    }

    private static String udWhat() {
        return CONNECTIONS + " UD QPs, " + COUNT + " datagrams of " + UD_SIZE + " B each way on each";
    }

    static List<String> join(List<String> a, List<String> b) {
        List<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    static String[] cmd(String tool, String opt, String address, List<String> rest) {
        return join(List.of(tool, opt, address), rest).toArray(new String[0]);
    }
}
