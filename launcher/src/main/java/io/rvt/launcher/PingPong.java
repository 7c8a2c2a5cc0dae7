package io.rvt.launcher;

import io.rvt.api.AddressHandle;
import io.rvt.api.Device;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.util.Locale;

/**
 * A connected QP pair between two devices that exchanges checked messages: each iteration sends a message from the
 * first device to the second and one back, and both are compared byte for byte with the pattern of their iteration,
 * so any lost, stale or corrupted byte stops the exchange. The loop reuses its work requests and allocates nothing.
 */
final class PingPong implements AutoCloseable {
    private final Transport transport;
    private final int size;
    private final int dataOff;
    /** The first device's side: it sends the ping. */
    final Endpoint a;
    /** The second device's side: it answers with the pong. */
    final Endpoint b;
    /** The first side's QP. */
    final QueuePair qa;
    /** The second side's QP. */
    final QueuePair qb;
    private final SendWorkRequest sa;
    private final SendWorkRequest sb;
    private final RecvWorkRequest ra;
    private final RecvWorkRequest rb;
    private final WorkCompletion wc = new WorkCompletion();
    /** Moves the network on while a completion is awaited. */
    private final Host host;
    private final String hint;
    private final String recvA;
    private final String recvB;
    private final String sendA;
    private final String sendB;
    /** Test hook: the iteration whose received message gets one byte flipped before it is checked, or -1. */
    private int corruptIteration = -1;
    private long iterations;

    /**
     * Creates and connects the pair.
     *
     * @param host the devices' host, whose network progresses while the pair waits
     * @param da the first device
     * @param db the second device
     * @param transport RC, UC or UD
     * @param size bytes per message
     * @throws UsageException if the size is above what the transport carries on these devices
     */
    PingPong(Host host, Device da, Device db, Transport transport, int size) {
        this(host, da, db, transport, size, LinkOptions.DEFAULT);
    }

    /**
     * Creates and connects the pair on the given port, path MTU and GID index.
     *
     * @param host the devices' host, whose network progresses while the pair waits
     * @param da the first device
     * @param db the second device
     * @param transport RC, UC or UD
     * @param size bytes per message
     * @param link the port, path MTU and GID index of both sides
     * @throws UsageException if the size is above what the transport carries on these devices, or the port or GID
     *         index is not there
     */
    PingPong(Host host, Device da, Device db, Transport transport, int size, LinkOptions link) {
        link.check(da);
        link.check(db);
        int mtu = Math.min(link.pathMtu(da).bytes(), link.pathMtu(db).bytes());
        if (transport == Transport.UD && size > mtu) {
            throw new UsageException("option --size: " + size + " bytes do not fit one UD datagram (at most the MTU, "
                    + mtu + " bytes, on " + da.name() + ")");
        }
        this.host = host;
        this.transport = transport;
        this.size = size;
        // UD receives land after a 40-byte GRH area: both sides keep their payload at that offset
        this.dataOff = transport == Transport.UD ? Endpoint.GRH_BYTES : 0;
        this.a = new Endpoint(da, dataOff + size, 16, link);
        this.b = new Endpoint(db, dataOff + size, 16, link);
        qa = a.createQp(transport.qpType(), 4, 4, SigType.SIGNAL_ALL_WR);
        qb = b.createQp(transport.qpType(), 4, 4, SigType.SIGNAL_ALL_WR);
        AddressHandle toB = a.connect(qa, b, qb);
        AddressHandle toA = b.connect(qb, a, qa);
        sa = send(a, toB, qb);
        sb = send(b, toA, qa);
        ra = new RecvWorkRequest(1).sge(a.mr, 0, dataOff + size);
        rb = new RecvWorkRequest(1).sge(b.mr, 0, dataOff + size);
        hint = Completions.lossHint(transport);
        recvA = "the receive on " + da.name();
        recvB = "the receive on " + db.name();
        sendA = "the send on " + da.name();
        sendB = "the send on " + db.name();
    }

    private SendWorkRequest send(Endpoint from, AddressHandle ah, QueuePair peer) {
        SendWorkRequest wr = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(from.mr, dataOff, size);
        if (ah != null) {
            wr.ah(ah).remoteQpn(peer.qpNum()).remoteQkey(Endpoint.QKEY);
        }
        return wr;
    }

    /**
     * Test hook: flips one byte of the message received in {@code iteration}, as a faulty data path would, so that a
     * test can see the check catch it.
     *
     * @param iteration the iteration, from 0
     */
    void corruptReceivedByteAt(int iteration) {
        this.corruptIteration = iteration;
    }

    /**
     * Exchanges {@code iters} round trips.
     *
     * @param iters how many
     * @throws DataCorruptionException if a message arrives different from what was sent
     * @throws IllegalStateException if a work request fails or a message never arrives
     */
    void exchange(int iters) {
        for (int n = 0; n < iters; n++) {
            long i = iterations++;
            long ping = 2 * i;
            DataPattern.fill(a.buffer, dataOff, size, ping);
            qb.postRecv(rb);
            qa.postRecv(ra);
            qa.postSend(sa);
            // B answers as soon as the ping is in: waiting for A's send completion first would also wait for the
            // responder's (possibly coalesced) ACK
            Completions.await(host, b.recvCq, wc, recvB, hint);
            if (i == corruptIteration) {
                b.buffer.put(dataOff + size / 2, (byte) ~b.buffer.get(dataOff + size / 2));
            }
            verify(b, ping, i, "ping");
            DataPattern.fill(b.buffer, dataOff, size, ping + 1);
            qb.postSend(sb);
            Completions.await(host, a.recvCq, wc, recvA, hint);
            verify(a, ping + 1, i, "pong");
            Completions.await(host, a.sendCq, wc, sendA, hint);
            Completions.await(host, b.sendCq, wc, sendB, hint);
        }
    }

    private void verify(Endpoint at, long stamp, long iteration, String leg) {
        int bad = DataPattern.firstMismatch(at.buffer, dataOff, size, stamp);
        if (bad >= 0) {
            throw new DataCorruptionException(String.format(Locale.ROOT,
                    "data corruption: %s of iteration %d received on %s: byte %d of %d is 0x%02x, sent 0x%02x", leg,
                    iteration, at.device.name(), bad, size, at.buffer.get(dataOff + bad) & 0xFF,
                    DataPattern.expected(stamp, bad) & 0xFF));
        }
    }

    /** @return the transport */
    Transport transport() {
        return transport;
    }

    /** Destroys both sides' QPs and resources. */
    @Override
    public void close() {
        a.close();
        b.close();
    }
}
