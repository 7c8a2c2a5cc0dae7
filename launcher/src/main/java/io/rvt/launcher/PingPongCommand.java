package io.rvt.launcher;

import io.rvt.api.AddressHandle;
import io.rvt.api.Device;
import io.rvt.api.PortAttr;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * {@code rvt pingpong}: ibv_rc_pingpong (and its uc/ud siblings) between the host's first two devices. Each iteration
 * sends a message there and one back; both are checked byte for byte against the pattern of their iteration, so any
 * lost, stale or corrupted byte stops the run with exit code 1. Prints ibv_rc_pingpong's two result lines.
 */
final class PingPongCommand {
    /** The default message size, ibv_rc_pingpong's. */
    static final int DEFAULT_SIZE = 4096;
    /** The default number of iterations, ibv_rc_pingpong's. */
    static final int DEFAULT_ITERS = 1000;

    private final PrintStream out;
    private final Transport transport;
    private final int size;
    private final int iters;
    /** Test hook: the iteration whose received message gets one byte flipped before it is checked, or -1. */
    private int corruptIteration = -1;

    /**
     * @param out where the results go
     * @param transport RC, UC or UD
     * @param size bytes per message
     * @param iters round trips
     */
    PingPongCommand(PrintStream out, Transport transport, int size, int iters) {
        this.out = out;
        this.transport = transport;
        this.size = size;
        this.iters = iters;
    }

    /**
     * Test hook: flips one byte of the message received in {@code iteration}, as a faulty data path would, so that a
     * test can see the check catch it.
     *
     * @param iteration the iteration, from 0
     * @return this command
     */
    PingPongCommand corruptReceivedByteAt(int iteration) {
        this.corruptIteration = iteration;
        return this;
    }

    /**
     * Runs the ping-pong.
     *
     * @param host the devices' host (at least two devices)
     * @throws UsageException if the size is above what the transport carries on these devices
     * @throws DataCorruptionException if a message arrives different from what was sent
     */
    void run(Host host) {
        List<Device> devs = Main.requireDevices(host, 2, "pingpong");
        int mtu = devs.get(0).queryPort(1, new PortAttr()).activeMtu().bytes();
        if (transport == Transport.UD && size > mtu) {
            throw new UsageException("option --size: " + size + " bytes do not fit one UD datagram (at most the MTU, "
                    + mtu + " bytes, on " + devs.get(0).name() + ")");
        }
        // UD receives land after a 40-byte GRH area: both sides keep their payload at that offset
        int dataOff = transport == Transport.UD ? Endpoint.GRH_BYTES : 0;
        try (Endpoint a = new Endpoint(devs.get(0), dataOff + size, 16);
                Endpoint b = new Endpoint(devs.get(1), dataOff + size, 16)) {
            QueuePair qa = a.createQp(transport.qpType(), 4, 4, SigType.SIGNAL_ALL_WR);
            QueuePair qb = b.createQp(transport.qpType(), 4, 4, SigType.SIGNAL_ALL_WR);
            AddressHandle toB = a.connect(qa, b, qb);
            AddressHandle toA = b.connect(qb, a, qa);
            out.printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x000000 (%s)%n", a.lid(), qa.qpNum(),
                    a.device.name());
            out.printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x000000 (%s)%n", b.lid(), qb.qpNum(),
                    b.device.name());
            SendWorkRequest sa = send(a, dataOff, toB, qb);
            SendWorkRequest sb = send(b, dataOff, toA, qa);
            RecvWorkRequest ra = new RecvWorkRequest(1).sge(a.mr, 0, dataOff + size);
            RecvWorkRequest rb = new RecvWorkRequest(1).sge(b.mr, 0, dataOff + size);
            WorkCompletion wc = new WorkCompletion();
            String hint = Completions.lossHint(transport);
            String recvB = "the receive on " + b.device.name();
            String recvA = "the receive on " + a.device.name();
            String sendA = "the send on " + a.device.name();
            String sendB = "the send on " + b.device.name();
            long start = System.nanoTime();
            for (int i = 0; i < iters; i++) {
                long ping = 2L * i;
                DataPattern.fill(a.buffer, dataOff, size, ping);
                qb.postRecv(rb);
                qa.postRecv(ra);
                qa.postSend(sa);
                // B answers as soon as the ping is in: waiting for A's send completion first would also wait for
                // the responder's (possibly coalesced) ACK
                Completions.await(b.recvCq, wc, recvB, hint);
                if (i == corruptIteration) {
                    b.buffer.put(dataOff + size / 2, (byte) ~b.buffer.get(dataOff + size / 2));
                }
                verify(b, dataOff, ping, i, "ping");
                DataPattern.fill(b.buffer, dataOff, size, ping + 1);
                qb.postSend(sb);
                Completions.await(a.recvCq, wc, recvA, hint);
                verify(a, dataOff, ping + 1, i, "pong");
                Completions.await(a.sendCq, wc, sendA, hint);
                Completions.await(b.sendCq, wc, sendB, hint);
            }
            double secs = (System.nanoTime() - start) / 1e9;
            long bytes = 2L * iters * size;
            out.printf(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, secs, bytes * 8 / secs / 1e6);
            out.printf(Locale.ROOT, "%d iters in %.2f seconds = %.2f usec/iter%n", iters, secs, secs * 1e6 / iters);
            out.printf("(%s; every message checked; measured on a simulated device: %s)%n",
                    transport.option().toUpperCase(Locale.ROOT), host.description());
        }
    }

    private SendWorkRequest send(Endpoint from, int dataOff, AddressHandle ah, QueuePair peer) {
        SendWorkRequest wr = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(from.mr, dataOff, size);
        if (ah != null) {
            wr.ah(ah).remoteQpn(peer.qpNum()).remoteQkey(Endpoint.QKEY);
        }
        return wr;
    }

    private void verify(Endpoint at, int dataOff, long stamp, int iteration, String leg) {
        int bad = DataPattern.firstMismatch(at.buffer, dataOff, size, stamp);
        if (bad >= 0) {
            throw new DataCorruptionException(String.format(Locale.ROOT,
                    "data corruption: %s of iteration %d received on %s: byte %d of %d is 0x%02x, sent 0x%02x", leg,
                    iteration, at.device.name(), bad, size, at.buffer.get(dataOff + bad) & 0xFF,
                    DataPattern.expected(stamp, bad) & 0xFF));
        }
    }
}
