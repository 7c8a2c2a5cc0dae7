package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.DeviceRegistry;
import io.rvt.api.Rvt;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricPort;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code rvt perf -b} between a server and a client that are two {@link RemotePerf}s in one JVM, on one driver-sim
 * fabric whose {@link io.rvt.driver.sim.fabric.DropRule} loses every ACK of the server's FLOW (its half of the
 * bidirectional row): the client has FLOW, answers DONE and leaves, and the server's FLOW, retransmitted in vain, is
 * flushed by the client's disconnect. The race NetnsIT's 5 % loss hit now and then, in every run.
 */
class RemotePerfFlowRaceTest {
    /** The devices' GIDs are these addresses' RoCEv2 GIDs ({@code ::ffff:a.b.c.d}), so rvt-cm finds them by IP. */
    private static final String SERVER_IP = "127.0.0.1";
    private static final String CLIENT_IP = "127.0.0.2";
    private static final int CM_PORT = 18515;
    /** driver-sim's frames: LRH (8 bytes), GRH (40), then the BTH; an RC SEND_ONLY's payload follows the BTH. */
    private static final int BTH = 48;
    private static final int PAYLOAD = BTH + 12;
    private static final int RC_SEND_ONLY = 0x04;
    private static final int RC_ACKNOWLEDGE = 0x11;
    private static final int CONTROL_MAGIC = 0x72767443; // PerfWire's "rvtC"
    /** A UD SEND_ONLY (the CM's MADs on the GSI QP); its MAD follows the BTH and the 8-byte DETH. */
    private static final int UD_SEND_ONLY = 0x64;
    private static final int MAD_ATTRIBUTE_ID = PAYLOAD + 8 + 16;
    private static final int CM_DREQ = 0x0015;

    /** One side's host: one HCA of the shared fabric, whose polls run the fabric (the progress hook). */
    record Side(Fabric fabric, Device device) implements Host {
        @Override
        public List<Device> devices() {
            return List.of(device);
        }

        @Override
        public String description() {
            return "driver-sim " + device.name() + " on fabric '" + fabric.name() + "'";
        }

        @Override
        public DriverKind driver() {
            return DriverKind.SIM;
        }

        @Override
        public void progress() {
            if (fabric.progress(RvtDriver.POLL_BUDGET) == 0) {
                Thread.onSpinWait();
            }
        }

        @Override
        public void close() {
        }
    }

    /**
     * Loses every RC ACK from the client to the server's control QP that acknowledges the server's FLOW. The control
     * QPs are told apart from the data QPs by their messages (PerfWire's magic): the client's ROW names the server's
     * control QP, the server's FLOW gives the PSN. The fabric's delivery thread calls it, one frame at a time.
     */
    private static final class LoseFlowAck implements io.rvt.driver.sim.fabric.DropRule {
        private final FabricPort server;
        private final FabricPort client;
        private final int dreqsToLose;
        private volatile int serverControlQpn = -1;
        private volatile int flowPsn = -1;
        final AtomicInteger lost = new AtomicInteger();
        final AtomicInteger lostDreqs = new AtomicInteger();

        /**
         * @param dreqsToLose how many of the client's first DREQs to lose as well (each is resent after a second)
         */
        LoseFlowAck(FabricPort server, FabricPort client, int dreqsToLose) {
            this.server = server;
            this.client = client;
            this.dreqsToLose = dreqsToLose;
        }

        @Override
        public boolean drops(FabricPort from, FabricPort to, ByteBuffer frame) {
            if (frame.limit() < PAYLOAD) {
                return false;
            }
            int opcode = frame.get(BTH) & 0xFF;
            if (opcode == UD_SEND_ONLY && from == client && frame.limit() >= MAD_ATTRIBUTE_ID + 2
                    && frame.getShort(MAD_ATTRIBUTE_ID) == CM_DREQ && lostDreqs.get() < dreqsToLose) {
                lostDreqs.incrementAndGet();
                return true;
            }
            int destQp = frame.getInt(BTH + 4) & 0xFF_FFFF;
            int psn = frame.getInt(BTH + 8) & 0xFF_FFFF;
            if (opcode == RC_SEND_ONLY && frame.limit() >= PAYLOAD + 5 && frame.getInt(PAYLOAD) == CONTROL_MAGIC) {
                int step = frame.get(PAYLOAD + 4);
                if (from == client) {
                    serverControlQpn = destQp;
                } else if (from == server && step == PerfWire.Step.FLOW.ordinal()) {
                    flowPsn = psn;
                }
                return false;
            }
            if (opcode == RC_ACKNOWLEDGE && from == client && destQp == serverControlQpn && psn == flowPsn) {
                lost.incrementAndGet();
                return true;
            }
            return false;
        }
    }

    static long guidOf(String ip) throws java.net.UnknownHostException {
        return 0x0000_FFFF_0000_0000L | (ByteBuffer.wrap(InetAddress.getByName(ip).getAddress()).getInt() & 0xFFFF_FFFFL);
    }

    @Test
    @Timeout(120)
    void shouldEndTheServersRowWhenTheClientLeftWhileTheAckOfItsFlowWasLost() throws Exception {
        LoseFlowAck rule = race(0);

        assertThat(rule.lost.get()).as("ACKs of the server's FLOW lost").isPositive();
    }

    /**
     * The client's DREQs are lost too (the first of each connection; they are resent after 1.07 s): the server's FLOW
     * runs out of retries (8 tries of 67 ms) before the disconnect comes, RETRY_EXC_ERR instead of a flush; the
     * client's DONE shows all the same that FLOW arrived.
     */
    @Test
    @Timeout(120)
    void shouldEndTheServersRowWhenItsFlowRanOutOfRetriesAfterTheClientLeft() throws Exception {
        LoseFlowAck rule = race(2);

        assertThat(rule.lostDreqs.get()).as("the client's DREQs lost").isEqualTo(2);
    }

    /**
     * Runs a one-row {@code -b} SEND table between a server and a client on one fabric, every ACK of the server's
     * FLOW lost, and asserts both printed their table.
     *
     * @param dreqsToLose how many of the client's first DREQs to lose too
     * @return the rule, for its counts
     */
    private static LoseFlowAck race(int dreqsToLose) throws Exception {
        // GID prefix 0 and port 1's GUID (the node GUID + 1) the address: the GID is ::ffff:a.b.c.d
        try (Fabric fabric = Fabric.builder("flow-race-" + System.nanoTime()).gidPrefix(0).realTime()
                .threading(ThreadingMode.PROGRESS).build(); DeviceRegistry registry = Rvt.create()) {
            SimDriver serverHca = SimDriver.builder(fabric).name("server").nodeGuid(guidOf(SERVER_IP) - 1).build();
            SimDriver clientHca = SimDriver.builder(fabric).name("client").nodeGuid(guidOf(CLIENT_IP) - 1).build();
            Side server = new Side(fabric, registry.register(serverHca));
            Side client = new Side(fabric, registry.register(clientHca));
            LoseFlowAck rule = new LoseFlowAck(serverHca.fabricPort(1), clientHca.fabricPort(1), dreqsToLose);
            fabric.dropRule(rule);
            PerfSpec spec = new PerfSpec(PerfTest.SEND, Transport.RC, false, new int[] {64}, 1, 2000, 0, 128,
                    PerfSpec.CQ_MODERATION, 1, true);
            String[] out = serverAndClient(server, client, spec);
            assertThat(out[0]).contains("Send Bidirectional BW Test").contains("(server: the client's measurement");
            assertThat(out[1]).contains("Send Bidirectional BW Test");
            return rule;
        }
    }

    /**
     * Runs {@code spec} between a {@link RemotePerf} server on {@code server} and a client on {@code client}, the
     * server on a thread of its own, until both have ended.
     *
     * @return what the server and the client printed
     */
    static String[] serverAndClient(Side server, Side client, PerfSpec spec) throws Exception {
        ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
        ByteArrayOutputStream clientOut = new ByteArrayOutputStream();
        PrintStream serverPrint = new PrintStream(serverOut, true, StandardCharsets.UTF_8);
        PrintStream clientPrint = new PrintStream(clientOut, true, StandardCharsets.UTF_8);
        RemotePerf.Reports none = (s, d, mtu, bw, lat) -> { };

        CompletableFuture<Void> serverRun = CompletableFuture.runAsync(() -> new RemotePerf(serverPrint,
                serverPrint, LinkOptions.DEFAULT, CM_PORT, false, none).server(server, asked -> null));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!serverOut.toString(StandardCharsets.UTF_8).contains("waiting for a client")) {
            assertThat(System.nanoTime()).as("the server listens").isLessThan(deadline);
            assertThat(serverRun).as("the server: %s", serverOut).isNotDone();
            Thread.onSpinWait();
        }
        new RemotePerf(clientPrint, clientPrint, LinkOptions.DEFAULT, CM_PORT, false, none).client(client,
                InetAddress.getByName(SERVER_IP), spec);
        try {
            serverRun.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError("the server failed: " + e.getCause() + "\n" + serverOut, e.getCause());
        }
        return new String[] {serverOut.toString(StandardCharsets.UTF_8), clientOut.toString(StandardCharsets.UTF_8)};
    }
}
