package io.rvt.launcher;

import io.rvt.api.AddressHandle;
import io.rvt.api.Device;
import io.rvt.api.QueuePair;
import io.rvt.api.SigType;
import io.rvt.cm.Connection;
import io.rvt.cm.DatagramPeer;

/**
 * A ping-pong between two devices of this process, connected through rvt-cm ({@link Connector}): each iteration
 * sends a message from the first device to the second and one back, both checked byte for byte
 * ({@link PingPongSide}), so any lost, stale or corrupted byte stops the exchange. The loop reuses its work requests
 * and allocates nothing.
 */
final class PingPong implements AutoCloseable {
    /** Send and receive queue entries of each side. */
    static final int DEPTH = 4;

    private final Connector connector;
    /** The first device's side: it sends the ping. */
    final PingPongSide a;
    /** The second device's side: it answers with the pong. */
    final PingPongSide b;
    /** The first side's QP. */
    final QueuePair qa;
    /** The second side's QP. */
    final QueuePair qb;
    /** Each side's starting send PSN. */
    final int psnA;
    final int psnB;
    private long iterations;

    /**
     * Creates and connects the pair on port 1, the CM port {@value Options#DEFAULT_CM_PORT}.
     *
     * @param host the devices' host, whose network progresses while the pair waits
     * @param da the first device
     * @param db the second device
     * @param transport RC, UC or UD
     * @param size bytes per message
     * @throws UsageException if the size is above what the transport carries on these devices
     */
    PingPong(Host host, Device da, Device db, Transport transport, int size) {
        this(host, da, db, transport, size, LinkOptions.DEFAULT, Options.DEFAULT_CM_PORT);
    }

    /**
     * Creates and connects the pair.
     *
     * @param host the devices' host, whose network progresses while the pair waits
     * @param da the first device
     * @param db the second device
     * @param transport RC, UC or UD
     * @param size bytes per message
     * @param link the port, path MTU and GID index of both sides
     * @param cmPort the CM port the second device listens on
     * @throws UsageException if the size is above what the transport carries on these devices, or the port or GID
     *         index is not there
     */
    PingPong(Host host, Device da, Device db, Transport transport, int size, LinkOptions link, int cmPort) {
        link.check(da);
        link.check(db);
        checkUdSize(transport, size, Math.min(link.pathMtu(da).bytes(), link.pathMtu(db).bytes()), da);
        int off = PingPongSide.dataOffset(transport);
        Endpoint ea = new Endpoint(da, off + size, 16, link);
        Endpoint eb = new Endpoint(db, off + size, 16, link);
        connector = new Connector(host);
        try {
            if (transport == Transport.UD) {
                QueuePair ua = ea.createUdQp(DEPTH, DEPTH, SigType.SIGNAL_ALL_WR);
                QueuePair ub = eb.createUdQp(DEPTH, DEPTH, SigType.SIGNAL_ALL_WR);
                connector.serveDatagram(db, cmPort, ub);
                connector.serveDatagram(da, cmPort, ua);
                DatagramPeer toB = connector.resolveDatagram(ea, eb.destination(), cmPort);
                DatagramPeer toA = connector.resolveDatagram(eb, ea.destination(), cmPort);
                AddressHandle ahB = ea.addressHandle(toB);
                AddressHandle ahA = eb.addressHandle(toA);
                a = new PingPongSide(host, ea, ua, transport, size, ahB, toB.qpn(), toB.qkey());
                b = new PingPongSide(host, eb, ub, transport, size, ahA, toA.qpn(), toA.qkey());
                psnA = ea.udPsn(ua);
                psnB = eb.udPsn(ub);
            } else {
                SigType all = SigType.SIGNAL_ALL_WR;
                Connection[] c = connector.pair(ea, ea.qpOptions(transport.qpType(), DEPTH, DEPTH, all), eb,
                        eb.qpOptions(transport.qpType(), DEPTH, DEPTH, all), cmPort);
                a = new PingPongSide(host, ea, c[0].qp(), transport, size, null, 0, 0);
                b = new PingPongSide(host, eb, c[1].qp(), transport, size, null, 0, 0);
                psnA = c[0].sendPsn();
                psnB = c[1].sendPsn();
            }
            connector.stopListening(); // connected: the port is free for the next pair
        } catch (RuntimeException e) {
            ea.close();
            eb.close();
            connector.close();
            throw e;
        }
        qa = a.qp;
        qb = b.qp;
    }

    /**
     * @param transport the transport
     * @param size bytes per message
     * @param mtu the path MTU
     * @param device names the device in the error
     * @throws UsageException if a UD message of {@code size} bytes does not fit one datagram
     */
    static void checkUdSize(Transport transport, int size, int mtu, Device device) {
        if (transport == Transport.UD && size > mtu) {
            throw new UsageException("option --size: " + size + " bytes do not fit one UD datagram (at most the MTU, "
                    + mtu + " bytes, on " + device.name() + ")");
        }
    }

    /**
     * Test hook: flips one byte of the ping received in {@code iteration}, as a faulty data path would, so that a
     * test can see the check catch it.
     *
     * @param iteration the iteration, from 0
     */
    void corruptReceivedByteAt(int iteration) {
        b.corruptReceivedByteAt(iteration);
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
            b.postReceive();
            a.postReceive();
            a.send(2 * i);
            // B answers as soon as the ping is in: waiting for A's send completion first would also wait for the
            // responder's (possibly coalesced) ACK
            b.awaitReceive(2 * i, i, "ping");
            b.send(2 * i + 1);
            a.awaitReceive(2 * i + 1, i, "pong");
            a.awaitSend();
            b.awaitSend();
        }
    }

    /** Disconnects and destroys both sides' QPs and resources. */
    @Override
    public void close() {
        connector.disconnectAll();
        a.endpoint.close();
        b.endpoint.close();
        connector.close();
    }
}
