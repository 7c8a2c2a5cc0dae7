package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpType;
import io.rvt.launcher.pingpong.PingpongDest;
import io.rvt.launcher.pingpong.PingpongLoop;
import io.rvt.launcher.pingpong.PingpongQp;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The examples' loop on two simulated HCAs connected by hand: a byte unlike the examples' data is caught, and a
 * timeout names the port counters that moved.
 */
class PingpongLoopTest {
    @Test
    void shouldCatchAByteTheExamplesWouldNotSend() throws Exception {
        assertThat(run(-1)).isPositive();
        assertThatThrownBy(() -> run(3000)).hasMessageContaining("data corruption: message 0, byte 3000 of 4096 is "
                + "0x00, the examples send 0x7b");
    }

    /**
     * A side that hears nothing gives up after its patience, and its error says what the port counters did since the
     * exchange: none moved where the peer never sent, the packets where it did (a UC message to a QP not ready
     * would show as received and dropped).
     */
    @Test
    void shouldNameThePortCountersThatMovedWhenNoCompletionComes() throws Exception {
        try (PlainHost host = PlainHost.start(Options.parse().fabric(), Threading.SHARED)) {
            Device sd = host.devices().get(0);
            Side s = new Side(sd);
            Side c = new Side(host.devices().get(1));
            PingpongQp.Path path = new PingpongQp.Path(PathMtu.MTU_1024, 0, -1, 14, true);
            s.qp.connect(s.pd, s.dest.psn(), c.dest, path);
            long[] before = ExamplesPingPong.counters(sd, 1);
            assertThat(ExamplesPingPong.moved(sd, 1, before)).isEqualTo("none moved");
            PingpongLoop sl = new PingpongLoop(s.qp.qp(), s.cq, s.send, s.recv, 4096, 8, false, Thread::onSpinWait,
                    200_000_000L).postReceives().timeoutDetail(() -> "port counters since the exchange: "
                            + ExamplesPingPong.moved(sd, 1, before));
            assertThatThrownBy(() -> sl.run(1, false)).hasMessage("no completion within 0 s (sent 0, received 0 of "
                    + "1): is the peer still there? (port counters since the exchange: none moved)");
            c.qp.connect(c.pd, c.dest.psn(), s.dest, path);
            PingpongLoop cl = new PingpongLoop(c.qp.qp(), c.cq, c.send, c.recv, 4096, 8, false, Thread::onSpinWait,
                    5_000_000_000L).postReceives().clientContent(false);
            PingpongLoop again = new PingpongLoop(s.qp.qp(), s.cq, s.send, s.recv, 4096, 8, false,
                    Thread::onSpinWait, 5_000_000_000L);
            CompletableFuture<Long> server = CompletableFuture.supplyAsync(() -> again.run(1, false));
            cl.run(1, true);
            server.get(30, TimeUnit.SECONDS);
            assertThat(ExamplesPingPong.moved(sd, 1, before)).contains("rx_packets +", "tx_packets +");
        }
    }

    /** @return the client's nanoseconds; {@code badByte} >= 0: the client's data has that byte zeroed */
    private static long run(int badByte) throws Exception {
        try (PlainHost host = PlainHost.start(Options.parse().fabric(), Threading.SHARED)) {
            Side s = new Side(host.devices().get(0));
            Side c = new Side(host.devices().get(1));
            PingpongQp.Path path = new PingpongQp.Path(PathMtu.MTU_1024, 0, -1, 14, true);
            s.qp.connect(s.pd, s.dest.psn(), c.dest, path);
            c.qp.connect(c.pd, c.dest.psn(), s.dest, path);
            PingpongLoop sl = new PingpongLoop(s.qp.qp(), s.cq, s.send, s.recv, 4096, 8, false, Thread::onSpinWait,
                    5_000_000_000L).postReceives();
            PingpongLoop cl = new PingpongLoop(c.qp.qp(), c.cq, c.send, c.recv, 4096, 8, false, Thread::onSpinWait,
                    5_000_000_000L).postReceives().clientContent(false);
            if (badByte >= 0) {
                c.send.buffer().put(badByte, (byte) 0);
            }
            CompletableFuture<Long> server = CompletableFuture.supplyAsync(() -> sl.run(20, false));
            try {
                long n = cl.run(20, true);
                server.get(30, TimeUnit.SECONDS);
                return n;
            } catch (ExecutionException e) {
                throw (Exception) e.getCause();
            } catch (IllegalStateException e) {
                // the client waits in vain for the pong of a message the server refused: the server's error says why
                try {
                    server.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException x) {
                    throw (Exception) x.getCause();
                }
                throw e;
            }
        }
    }

    /** One side's verbs objects, as ExamplesPingPong makes them. */
    private static final class Side {
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final MemoryRegion send;
        final MemoryRegion recv;
        final PingpongQp qp;
        final PingpongDest dest;

        Side(Device d) {
            pd = d.allocPd();
            cq = d.createCq(9, 0, null, null);
            send = pd.regMr(ByteBuffer.allocateDirect(4096), AccessFlag.LOCAL_WRITE.bit());
            recv = pd.regMr(ByteBuffer.allocateDirect(4096), AccessFlag.LOCAL_WRITE.bit());
            qp = new PingpongQp(pd, cq, QpType.RC, 8, 1);
            dest = new PingpongDest(d.queryPort(1, new PortAttr()).lid(), qp.qp().qpNum(), 0x123456, Gid.ZERO);
        }
    }
}
