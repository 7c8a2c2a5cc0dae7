package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import io.rvt.transport.RcInFlight;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A port's RC window comes from the receive buffer the kernel granted its socket, and keeps an RC stream from
 * overrunning the peer's: with a small buffer, a stream of 64 KiB RDMA WRITEs over loopback arrives whole, with no
 * datagram dropped by the kernel and never more packets in flight than the window. Not timed: the stream only has to
 * end.
 */
class JniRcWindowTest {
    private static final int ASKED = 64 * 1024;
    private static final int MSG = 64 * 1024;
    private static final int BUF = 1 << 20;

    @Test
    void shouldReportTheGrantedBuffersAndDeriveTheWindowFromTheReceiveBuffer() {
        try (JniFixture f = new JniFixture(1, "127.0.0.1").socketBufferBytes(ASKED)) {
            f.open(1);
            JniDriver d = f.drivers().get(0);
            int granted = d.statistics(1).receiveBufferBytes();
            // Linux reports twice what was asked; without CAP_NET_ADMIN it caps the request at net.core.rmem_max.
            assertThat(granted).isPositive().isLessThanOrEqualTo(2 * ASKED);
            assertThat(d.statistics(1).sendBufferBytes()).isPositive().isLessThanOrEqualTo(2 * ASKED);
            int window = d.rcWindowPackets(1);
            // A 4 KiB-MTU datagram takes 8,448 bytes of a loopback socket's buffer (measured): half the buffer's worth.
            assertThat(window).isPositive().isLessThanOrEqualTo(granted / 8448 / 2);
            assertThat(JniDriver.datagramTruesize(4200)).isGreaterThanOrEqualTo(8448);
            assertThat(JniDriver.datagramTruesize(100)).isGreaterThanOrEqualTo(832);
            RcInFlight w = d.rcInFlight(1);
            assertThat(w.budget()).isEqualTo(window);
            assertThat(w.inFlight()).isZero();
        }
    }

    @Test
    void shouldStreamRdmaWritesWithoutKernelDropsWhenTheReceiveBufferIsSmall() {
        try (JniFixture f = new JniFixture(1, "127.0.0.1").socketBufferBytes(ASKED)) {
            Device[] dev = f.open(2);
            JniDriver a = f.drivers().get(0);
            JniDriver b = f.drivers().get(1);
            Verbs verbs = new Verbs(f);
            Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, BUF, 7, 1);
            Verbs.fill(p[0].buffer, 0, BUF, 5);
            int slots = BUF / MSG;
            int messages = 256; // 16 MiB, 4,096 packets of 4 KiB: 64 times what the receive buffer holds
            int depth = 32;
            int posted = 0;
            int done = 0;
            while (done < messages) {
                while (posted < messages && posted - done < depth) {
                    int off = (posted % slots) * MSG;
                    p[0].qp.postSend(new SendWorkRequest(1).wrId(posted).opcode(WrOpcode.RDMA_WRITE)
                            .sendFlags(SendFlag.SIGNALED.bit()).sge(p[0].mr, off, MSG)
                            .remoteAddr(p[1].mr.addr() + off).rkey(p[1].mr.rkey()));
                    posted++;
                }
                List<WorkCompletion> wcs = verbs.await(p[0].sendCq, 1);
                Verbs.assertSuccess(wcs.get(0), done);
                done++;
            }
            assertThat(slice(p[1].buffer, 0, BUF)).isEqualTo(slice(p[0].buffer, 0, BUF));
            // The sockets' own drop counts (from their opening), read here rather than when the engines next look.
            assertThat(b.port(1).io.kernelDrops()).as("datagrams the responder's kernel dropped").isZero();
            assertThat(a.port(1).io.kernelDrops()).as("datagrams the requester's kernel dropped").isZero();
            assertThat(dev[1].portCounter(1, PortCounter.RX_KERNEL_DROPS)).isZero();
            RcInFlight w = a.rcInFlight(1);
            assertThat(w.peak()).as("PSNs in flight at most").isPositive().isLessThanOrEqualTo(a.rcWindowPackets(1));
            assertThat(w.waits()).as("the stream met its window").isPositive();
        }
    }

    private static byte[] slice(ByteBuffer b, int off, int len) {
        byte[] out = new byte[len];
        b.get(off, out);
        return out;
    }
}
