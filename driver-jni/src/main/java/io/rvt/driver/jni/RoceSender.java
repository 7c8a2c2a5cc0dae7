package io.rvt.driver.jni;

import io.rvt.api.AhAttr;
import io.rvt.api.Gid;
import io.rvt.api.PortCounter;
import io.rvt.api.spi.DriverPort;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.Icrc;
import io.rvt.transport.header.PayloadSlices;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The send side of a {@link JniDriver}'s wire: RoCEv2 (IBTA Annex A17) framing of the packets the transport made into
 * the sending thread's {@link TxBatch}: the destination from the DGID and the peer table, the flow's UDP source
 * socket, the ICRC (over the payload where it lies, when the transport referenced it), one unicast copy per peer for
 * a multicast group; and the batch's {@code sendmmsg}.
 */
final class RoceSender {
    private final int defaultPeerPort;
    /** Configured peers: GID → destination (multicast copies go to each). */
    private final ConcurrentHashMap<Gid, Peer> peers = new ConcurrentHashMap<>();
    /** Every destination resolved so far (configured or default port), so that the send path allocates nothing. */
    private final ConcurrentHashMap<Gid, Peer> resolved = new ConcurrentHashMap<>();

    /**
     * @param defaultPeerPort the UDP port of a destination that is not in the peer table
     */
    RoceSender(int defaultPeerPort) {
        this.defaultPeerPort = defaultPeerPort;
    }

    /** Adds or replaces a peer table entry. */
    void addPeer(Peer p) {
        peers.put(p.gid, p);
        resolved.put(p.gid, p);
    }

    /**
     * Removes a peer table entry: its GID resolves to the default port again.
     *
     * @param gid the peer's GID
     * @return whether it was there
     */
    boolean removePeer(Gid gid) {
        boolean was = peers.remove(gid) != null;
        resolved.remove(gid);
        return was;
    }

    /** @return the UDP port packets to {@code dgid} go to */
    int peerPort(Gid dgid) {
        return resolve(dgid).port;
    }

    /**
     * Frames the packet the transport just wrote into the batch's next slot ({@code n} transport bytes at
     * {@code off}) and queues it.
     *
     * @return the datagrams queued: 1, one per peer for a multicast group, 0 if the packet was dropped (counted)
     */
    int frame(TxScratch sc, PortEngine p, int off, int n) {
        TxInfo tx = sc.info;
        // By reference, the slot holds the headers and the pad (the ICRC goes after them); otherwise the packet.
        int inSlot = tx.isPayloadByReference() ? n - tx.payloadLength() : n;
        AhAttr ah = tx.ah();
        DriverPort dp = p.driverPort(); // sends begin after registration
        if (!ah.isGlobal()) {
            dp.addCounter(PortCounter.PKT_DROPS, 1); // RoCE needs a GRH: no GID, no IP address
            return 0;
        }
        Gid dgid = ah.dgid();
        off = chooseSender(sc, p, tx, off, inSlot);
        int srcPort = sc.sender.localPort();
        if (dgid.isMulticast()) {
            return sendMulticast(sc, p, dgid, srcPort, off, inSlot, dp);
        }
        Peer to = resolve(dgid);
        if (to.ipv6 != p.ipv6) {
            dp.addCounter(PortCounter.PKT_DROPS, 1); // an IPv4 port cannot reach an IPv6 peer and vice versa
            return 0;
        }
        queue(sc, p, srcPort, to, dgid, to.v4, off, inSlot);
        return 1;
    }


    /** Sends what {@code sc}'s batch holds through its port. */
    void flush(TxScratch sc) {
        TxBatch b = sc.batch;
        PortEngine p = sc.port;
        if (b.count == 0 || p == null) {
            return;
        }
        int datagrams = b.count;
        int dropped = sc.sender.send(b);
        p.stats.countSends(b.sendCalls, datagrams, b.gsoSegments, dropped);
        if (dropped > 0) {
            DriverPort dp = p.driverPort();
            if (dp != null) {
                dp.addCounter(PortCounter.PKT_DROPS, dropped);
            }
        }
    }

    /**
     * Writes the ICRC of the packet whose slot part is at {@code off} (its last slot, {@code inSlot} bytes) and
     * queues it to {@code to}: the slot alone, or, when the transport referenced the payload, the slot's headers, the
     * payload's slices of registered memory and the slot's pad and ICRC.
     */
    private void queue(TxScratch sc, PortEngine p, int srcPort, Peer to, Gid dst, int dstV4, int off, int inSlot) {
        TxInfo tx = sc.info;
        TxBatch b = sc.batch;
        AhAttr ah = tx.ah();
        // RoCEv2 (Annex A17) maps the GRH onto the IP header; the ICRC masks these fields, so it does not change.
        b.ipHeader(ah.trafficClass(), ah.hopLimit(), ah.flowLabel());
        ByteBuffer buf = b.data;
        Icrc icrc = sc.icrc;
        if (!tx.isPayloadByReference()) {
            int total = inSlot + Icrc.LENGTH;
            if (p.ipv6) {
                icrc.writeRoceV6(p.localGid, dst, srcPort, to.port, buf, off, total);
            } else {
                icrc.writeRoceV4(p.localV4, dstV4, 0, true, srcPort, to.port, buf, off, total);
            }
            b.add(to, total, p.scopeId);
            return;
        }
        int length = inSlot + tx.payloadLength();
        if (p.ipv6) {
            icrc.startRoceV6(p.localGid, dst, srcPort, to.port, buf, off, length);
        } else {
            icrc.startRoceV4(p.localV4, dstV4, 0, true, srcPort, to.port, buf, off, length);
        }
        int head = tx.headerLength();
        icrc.add(buf, off + BthDescriptor.LENGTH, head - BthDescriptor.LENGTH);
        PayloadSlices payload = tx.payload();
        for (int i = 0; i < payload.count(); i++) {
            icrc.add(payload.buffer(i), payload.offset(i), payload.length(i));
        }
        icrc.add(buf, off + head, inSlot - head);
        Icrc.write(buf, off + inSlot, icrc.value());
        b.addReferenced(to, head, inSlot - head + Icrc.LENGTH, p.scopeId);
        p.stats.countZeroCopy();
    }

    private Peer resolve(Gid dgid) {
        Peer p = resolved.get(dgid);
        return p != null ? p : resolved.computeIfAbsent(dgid, g -> new Peer(g, defaultPeerPort));
    }

    /**
     * Picks the socket of the packet's flow (its UDP source port, {@link JniDriver#flowSourcePort}). A batch goes out through
     * one socket, so a packet of another flow first sends what is queued, and moves to the first slot.
     *
     * @param inSlot the packet's bytes in its slot
     * @return where the packet is now
     */
    private int chooseSender(TxScratch sc, PortEngine p, TxInfo tx, int off, int inSlot) {
        Datagrams want = p.sender(tx.qpn(), tx.destQpn(), tx.ah().flowLabel());
        if (want == sc.sender) {
            return off;
        }
        TxBatch b = sc.batch;
        if (b.count > 0) {
            flush(sc);
            off = b.moveToNext(off, inSlot); // to slot 0, with its payload slices
        }
        sc.sender = want;
        return off;
    }

    /** One unicast copy per configured peer of the port's family, each with the group's ICRC. */
    private int sendMulticast(TxScratch sc, PortEngine p, Gid mgid, int srcPort, int off, int inSlot,
            DriverPort dp) {
        TxBatch b = sc.batch;
        int v4 = Peer.groupV4(mgid);
        int copies = 0;
        for (Peer to : peers.values()) {
            if (to.ipv6 != p.ipv6) {
                continue;
            }
            if (b.isFull()) {
                // The packet's bytes stay in their slot after the flush: move them to slot 0. (A multicast packet is
                // UD, whose payload is always copied, so it has no slices the flush could forget.)
                flush(sc);
                off = b.moveToNext(off, inSlot);
            }
            int at = b.copyToNext(off, inSlot);
            queue(sc, p, srcPort, to, mgid, v4, at, inSlot);
            copies++;
        }
        if (copies == 0) {
            dp.addCounter(PortCounter.PKT_DROPS, 1);
        }
        return copies;
    }
}
