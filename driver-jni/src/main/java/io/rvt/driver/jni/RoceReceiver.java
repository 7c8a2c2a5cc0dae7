package io.rvt.driver.jni;

import io.rvt.api.AhAttr;
import io.rvt.api.Gid;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.Framing;
import io.rvt.transport.header.GrhDescriptor;
import io.rvt.transport.header.Icrc;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.PacketHeaders;
import io.rvt.transport.header.RejectReason;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The receive side of a {@link JniDriver}'s wire: a datagram of a port's receive batch checked (length, family,
 * ICRC over the sender's real address and port; over IPv4 under ID 0 or the one IP Identification the ICRC solves
 * for), parsed, given the GRH a UD receive sees (from the IP header as RoCEv2 maps it) and handed to the driver's
 * packet skeleton; multicast packets matched by their ICRC to a group the port joined; rxe's address check for
 * connected QPs.
 */
final class RoceReceiver {
    private final boolean checkIpv4Icrc;
    private final boolean solveIpv4Id;
    private final int mtuBytes;
    private volatile McastJoin[][] joins;

    /** A multicast group a port joined, with the group address its ICRC is computed over. */
    private static final class McastJoin {
        final Gid mgid;
        final int mlid;
        final int v4;

        McastJoin(Gid mgid, int mlid) {
            this.mgid = mgid;
            this.mlid = mlid;
            this.v4 = Peer.groupV4(mgid);
        }
    }

    /**
     * @param nports the driver's ports
     * @param checkIpv4Icrc whether IPv4 packets' ICRC is checked ({@link JniDriverBuilder#checkIpv4Icrc})
     * @param solveIpv4Id whether the ICRC may solve for a non-zero IPv4 ID ({@link JniDriverBuilder#solveIpv4Id})
     * @param mtuBytes the ports' MTU: the longest UD payload
     */
    RoceReceiver(int nports, boolean checkIpv4Icrc, boolean solveIpv4Id, int mtuBytes) {
        this.checkIpv4Icrc = checkIpv4Icrc;
        this.solveIpv4Id = solveIpv4Id;
        this.mtuBytes = mtuBytes;
        this.joins = new McastJoin[nports][0];
    }

    /**
     * Datagram {@code i} of the port's receive batch: each RoCEv2 packet it holds (one, or with UDP GRO the segments
     * of a coalesced datagram, the last possibly shorter) checked, parsed and handed on in order. Never throws.
     */
    void onDatagram(PortEngine p, EngineLane l, int i) {
        DriverPort port = p.driverPort();
        if (port == null) {
            return;
        }
        RxBatch rx = l.rx;
        int off = rx.offset(i);
        int len = rx.length(i);
        int seg = rx.segmentSize(i);
        if (seg == 0 || seg >= len) {
            onPacket(p, l, i, port, off, len, rx.truncated(i));
            return;
        }
        // Coalesced by the kernel (UDP GRO): every segment but the last is seg bytes; each is a packet of its own.
        // A datagram cut at the slot's end lost its tail: the whole segments before the cut are good.
        boolean truncated = rx.truncated(i);
        int whole = truncated ? len - len % seg : len;
        int packets = 0;
        for (int at = 0; at < whole; at += seg) {
            onPacket(p, l, i, port, off + at, Math.min(seg, whole - at), false);
            packets++;
        }
        if (truncated) {
            onPacket(p, l, i, port, off + whole, len - whole, true); // the cut segment (or none): malformed
        }
        l.groSegments += packets;
    }

    /** One packet of datagram {@code i}: check, parse, find the QP, run the transport. Never throws. */
    private void onPacket(PortEngine p, EngineLane l, int i, DriverPort port, int off, int len, boolean truncated) {
        RxBatch rx = l.rx;
        ByteBuffer buf = rx.data;
        l.delivery.received(len);
        boolean v6 = rx.sourceIsIpv6(i);
        if (truncated || len < BthDescriptor.LENGTH + Icrc.LENGTH || v6 != p.ipv6) {
            p.dropMalformed(port);
            return;
        }
        PacketHeaders h = l.headers;
        if (l.parser.parse(buf, off, len, Framing.ROCEV2, h) != RejectReason.OK) {
            p.dropMalformed(port);
            return;
        }
        int srcPort = rx.sourcePort(i);
        int srcV4 = v6 ? 0 : rx.sourceV4(i);
        Gid src = v6 ? l.sourceGid(rx.sourceHi(i), rx.sourceLo(i))
                : l.sourceGid(0, 0x0000_FFFF_0000_0000L | (srcV4 & 0xFFFF_FFFFL));
        boolean check = v6 || checkIpv4Icrc;
        if (h.destQp() == BthDescriptor.MULTICAST_QPN) {
            deliverMulticast(p, l, i, port, src, srcV4, srcPort, off, len, check);
            return;
        }
        if (check) {
            int id = icrcMatch(p, l, srcV4, srcPort, src, p.localGid, p.localV4, off, len, solveIpv4Id);
            if (id < 0) {
                p.stats.countIcrcError();
                p.dropMalformed(port);
                return;
            }
            if (id > 0) {
                port.addCounter(PortCounter.RX_IPV4_ID_SOLVED, 1);
            }
        }
        if (oversizeUd(h, port)) {
            return;
        }
        synthesizeGrh(l, i, src, p.localGid, len);
        l.rxSource = src;
        l.delivery.receive(buf, h, l.info.set(p.portNum, 0, 0, 0, l.grh, 0));
    }

    /**
     * A UD message is one packet of at most the path MTU, which for UD is the port's MTU: a longer payload is dropped
     * and counted ({@code RX_UD_OVERSIZE}), as a NIC drops a frame larger than its MTU.
     */
    private boolean oversizeUd(PacketHeaders h, DriverPort port) {
        if (Opcode.transport(h.opcode()) == Opcode.UD && h.payloadLength() > mtuBytes) {
            port.addCounter(PortCounter.RX_UD_OVERSIZE, 1);
            return true;
        }
        return false;
    }

    /**
     * rxe's {@code check_addr}: a connected QP takes packets only from its peer's address, its primary path's DGID
     * (or its alternate path's, for path migration). The UDP source port is flow entropy and identifies nothing.
     */
    private static boolean fromRemote(DriverQp qp, Gid src) {
        AhAttr primary = qp.remoteAhAttr();
        if (primary != null && src.equals(primary.dgid())) {
            return true;
        }
        AhAttr alt = qp.altAhAttr();
        return alt != null && alt.isGlobal() && src.equals(alt.dgid());
    }

    private void deliverMulticast(PortEngine p, EngineLane l, int i, DriverPort port, Gid src, int srcV4,
            int srcPort, int off, int len, boolean check) {
        McastJoin[] js = joins[p.portNum - 1];
        if (js.length == 0) {
            // No group joined here: nothing to check the ICRC against, and nobody to deliver to.
            port.addCounter(PortCounter.RX_MCAST_NO_GROUP, 1);
            return;
        }
        if (!check) {
            for (McastJoin j : js) {
                if (!deliverToGroup(p, l, i, port, src, j, len)) {
                    return;
                }
            }
            return;
        }
        McastJoin match = null;
        for (McastJoin j : js) { // as sent (ID 0 over IPv4) first: the ICRC names exactly one group
            if (icrcMatch(p, l, srcV4, srcPort, src, j.mgid, j.v4, off, len, false) == 0) {
                match = j;
                break;
            }
        }
        if (match == null && solveIpv4Id && !p.ipv6) {
            match = solvedGroup(p, l, js, srcV4, srcPort, off, len);
            if (match != null) {
                port.addCounter(PortCounter.RX_IPV4_ID_SOLVED, 1);
            }
        }
        if (match == null) {
            p.stats.countIcrcError(); // corrupt, or for a group this port has not joined: the ICRC cannot tell which
            p.dropMalformed(port);
            return;
        }
        deliverToGroup(p, l, i, port, src, match, len);
    }

    /**
     * The one group whose address the ICRC solves for a non-zero IPv4 ID, or null if none does or more than one
     * does: with 16 check bits left, a wrong group solves for one packet length in 65,536, and then the ICRC cannot
     * tell which group the packet is for.
     */
    private McastJoin solvedGroup(PortEngine p, EngineLane l, McastJoin[] js, int srcV4, int srcPort, int off,
            int len) {
        McastJoin match = null;
        for (McastJoin j : js) {
            if (l.icrc.recoverRoceV4Id(srcV4, j.v4, true, srcPort, p.io.localPort(), l.rx.data, off, len) > 0) {
                if (match != null) {
                    return null;
                }
                match = j;
            }
        }
        return match;
    }

    /** Delivers to a group's members unless the UD payload is over the MTU; returns false if it was. */
    private boolean deliverToGroup(PortEngine p, EngineLane l, int i, DriverPort port, Gid src, McastJoin j,
            int len) {
        if (oversizeUd(l.headers, port)) {
            return false;
        }
        synthesizeGrh(l, i, src, j.mgid, len);
        l.delivery.receiveMulticast(j.mgid, j.mlid, l.rx.data, l.headers, l.info.set(p.portNum, 0, 0, 0, l.grh, 0));
        return true;
    }

    /**
     * The ICRC check: over IPv6 with the real addresses and ports; over IPv4 with ID 0 and DF (what rvt sends) and,
     * with {@code solve}, under the one non-zero ID the ICRC solves for (what Linux's rxe sends: it numbers the IDs).
     *
     * @return 0 if the ICRC matches as sent (IPv6, or IPv4 with ID 0); the solved IPv4 ID if that matches; -1 if
     *         nothing does
     */
    private static int icrcMatch(PortEngine p, EngineLane l, int srcV4, int srcPort, Gid src, Gid dst, int dstV4,
            int off, int len, boolean solve) {
        ByteBuffer buf = l.rx.data;
        int localPort = p.io.localPort();
        if (p.ipv6) {
            return l.icrc.checkRoceV6(src, dst, srcPort, localPort, buf, off, len) ? 0 : -1;
        }
        if (solve) {
            return l.icrc.recoverRoceV4Id(srcV4, dstV4, true, srcPort, localPort, buf, off, len);
        }
        return l.icrc.checkRoceV4(srcV4, dstV4, 0, true, srcPort, localPort, buf, off, len) ? 0 : -1;
    }

    /**
     * The GRH a UD receive gets, from the IP header as RoCEv2 maps it: traffic class, flow label and hop limit as
     * received (when the socket layer reports them; else 0, 0 and 64), payload length, next header UDP, SGID and
     * DGID.
     */
    private static void synthesizeGrh(EngineLane l, int i, Gid src, Gid dst, int len) {
        RxBatch rx = l.rx;
        if (rx.hasIpInfo(i)) {
            GrhDescriptor.write(l.grh, 0, rx.trafficClass(i), rx.flowLabel(i), len, rx.hopLimit(i), src, dst);
        } else {
            GrhDescriptor.write(l.grh, 0, 0, 0, len, 64, src, dst);
        }
    }

    /**
     * rxe's {@code check_addr} on the packet's sender ({@link #fromRemote}), counted as {@code RX_ADDR_MISMATCH}.
     *
     * @param qp the packet's QP
     * @param port the port it arrived on
     * @param source the sender of the datagram being delivered (the receiving lane's {@link EngineLane#rxSource})
     * @return whether the QP takes it
     */
    boolean admits(DriverQp qp, DriverPort port, Gid source) {
        QpType type = qp.type();
        if ((type == QpType.RC || type == QpType.UC) && !fromRemote(qp, source)) {
            port.addCounter(PortCounter.RX_ADDR_MISMATCH, 1);
            return false;
        }
        return true;
    }

    /** A port joined a group: its ICRC is now checked against the group's address too. */
    void attach(DriverPort port, Gid mgid, int mlid) {
        synchronized (this) {
            McastJoin[][] all = joins.clone();
            McastJoin[] cur = all[port.portNum() - 1];
            for (McastJoin j : cur) {
                if (j.mgid.equals(mgid) && j.mlid == mlid) {
                    return;
                }
            }
            McastJoin[] next = Arrays.copyOf(cur, cur.length + 1);
            next[cur.length] = new McastJoin(mgid, mlid);
            all[port.portNum() - 1] = next;
            joins = all;
        }
    }

    /** A port left a group. */
    void detach(DriverPort port, Gid mgid, int mlid) {
        synchronized (this) {
            McastJoin[][] all = joins.clone();
            McastJoin[] cur = all[port.portNum() - 1];
            List<McastJoin> keep = new ArrayList<>();
            for (McastJoin j : cur) {
                if (!(j.mgid.equals(mgid) && j.mlid == mlid)) {
                    keep.add(j);
                }
            }
            all[port.portNum() - 1] = keep.toArray(new McastJoin[0]);
            joins = all;
        }
    }
}
