package io.rvt.transport;

import io.rvt.api.AhAttr;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.PortCounter;
import io.rvt.api.PortState;
import io.rvt.api.spi.GidLookup;
import io.rvt.api.spi.PortModify;
import io.rvt.api.spi.PortQuery;
import io.rvt.api.spi.DriverAh;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.OperationTable;
import io.rvt.api.spi.TimerService;
import io.rvt.core.RvtDevice;
import io.rvt.transport.engine.Packets;
import io.rvt.transport.engine.RxInfo;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.Framing;
import io.rvt.transport.header.GrhDescriptor;
import io.rvt.transport.header.Icrc;
import io.rvt.transport.header.LrhDescriptor;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.PacketBuilder;
import io.rvt.transport.header.PacketHeaders;
import io.rvt.transport.header.PacketParser;
import io.rvt.transport.header.PayloadSlices;
import io.rvt.transport.header.RejectReason;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * A tiny packet driver for the transport's end-to-end tests: one port with a LID, native InfiniBand framing (LRH,
 * GRH when the address is global, ICRC), the {@link Transport} behind every rdmavt callback, and a send engine that the
 * test runs step by step ({@link #runEngines}): {@code scheduleSend}, {@code scheduleSendNoLock} and {@code doSend}
 * only queue the QP. Packets go to the {@link Fabric}; received ones come back through {@link #deliver}.
 */
final class WireDriver extends TransportDriver implements PortQuery, PortModify, GidLookup {
    static final Gid GID_PREFIX = Gid.of(0xFE80_0000_0000_0000L, 0);
    private static final int BTH_OFFSET = LrhDescriptor.LENGTH + GrhDescriptor.LENGTH;

    private final String name;
    private final int lid;
    private final TimerService timers;
    private final Fabric fabric;
    private final int mtu;
    private final Set<DriverQp> scheduled = new LinkedHashSet<>();
    private final ByteBuffer txBuf = ByteBuffer.allocate(16384);
    private final TxInfo tx = new TxInfo();
    private final RxInfo rx = new RxInfo();
    private final PacketParser parser = new PacketParser(true);
    private final PacketHeaders hdr = new PacketHeaders();
    private final Icrc icrc = new Icrc();
    private volatile DriverDevice device;
    /** Opcodes of packets whose payload the transport referenced, and of those with a copied payload. */
    final Set<Integer> referencedOpcodes = new java.util.TreeSet<>();
    final Set<Integer> copiedOpcodes = new java.util.TreeSet<>();
    /** Packets built by this driver, in order (for tests that look at the wire). */
    final ArrayDeque<byte[]> sentLog = new ArrayDeque<>();
    boolean logSent;
    /** Lets the transport make runs ({@code TxInfo.runLimit}), put on the wire as the packets they stand for. */
    boolean runs;
    /** Lets the transport make runs and hands each to the receiver as one unit ({@code PacketHeaders.run}). */
    boolean deliverRuns;
    /** Runs of more than one packet the transport made. */
    int runsMade;
    /** With receive batches ({@link Fabric#batches()}): ACKs owed are queued at {@link #endBatch()}, as PacketDriver does. */
    Delivery batch;
    /** {@link TxInfo#isDrained()} of each packet made, in order, while {@link #logSent}. */
    final java.util.List<Boolean> drainedLog = new java.util.ArrayList<>();

    WireDriver(String name, int lid, TimerService timers, Fabric fabric, int mtu) {
        this.name = name;
        this.lid = lid;
        this.timers = timers;
        this.fabric = fabric;
        this.mtu = mtu;
    }

    RvtDevice register() {
        return RvtDevice.register(this);
    }

    int lid() {
        return lid;
    }

    Gid gid() {
        return Gid.of(GID_PREFIX.subnetPrefix(), 0x0011_7500_0000_0000L | lid);
    }

    DriverDevice device() {
        return device;
    }

    DriverPort port() {
        return device.port(1);
    }

    // ------------------------------------------------------------------ the send engine

    /** @return true if some QP waits for its send engine */
    boolean hasScheduled() {
        synchronized (scheduled) {
            return !scheduled.isEmpty();
        }
    }

    /**
     * Runs the send engine once for every queued QP (which may queue QPs again).
     *
     * @return packets put on the wire
     */
    int runEngines() {
        int packets = 0;
        while (true) {
            DriverQp qp;
            synchronized (scheduled) {
                Iterator<DriverQp> it = scheduled.iterator();
                if (!it.hasNext()) {
                    return packets;
                }
                qp = it.next();
                it.remove();
            }
            int n;
            tx.runLimit(runs || deliverRuns ? PacketHeaders.MAX_RUN : 1);
            while ((n = transport().makePacket(qp, txBuf, BTH_OFFSET, tx)) > 0) {
                if (logSent) {
                    drainedLog.add(tx.isDrained());
                }
                if (tx.runPackets() > 1) {
                    runsMade++;
                    transmitRun();
                } else {
                    transmit(n);
                }
                packets++;
            }
        }
    }

    /** Asks the transport for payload by reference (see {@link TxInfo#payloadByReference}). */
    void payloadByReference(int maxSegments, int minLength) {
        tx.payloadByReference(maxSegments, minLength);
    }

    private void transmit(int transportBytes) {
        if (tx.isPayloadByReference()) {
            gatherPayload();
        } else if (tx.payloadLength() > 0) {
            copiedOpcodes.add(tx.opcode());
        }
        fabric.send(this, tx.ah().dlid(), frame(transportBytes));
    }

    /** LRH, GRH and ICRC around the transport bytes at {@code BTH_OFFSET}: the packet, logged and counted. */
    private byte[] frame(int transportBytes) {
        boolean global = tx.needsGrh();
        int start = global ? 0 : GrhDescriptor.LENGTH;
        int length = BTH_OFFSET - start + transportBytes + Icrc.LENGTH;
        LrhDescriptor.write(txBuf, start, 0, tx.sl(), global ? LrhDescriptor.LNH_IBA_GLOBAL
                : LrhDescriptor.LNH_IBA_LOCAL, tx.ah().dlid(), length / 4, lid | tx.ah().srcPathBits());
        if (global) {
            GrhDescriptor.write(txBuf, LrhDescriptor.LENGTH, tx.ah().trafficClass(), tx.ah().flowLabel(), 0,
                    tx.ah().hopLimit(), gid(), tx.ah().dgid());
        }
        PacketBuilder.fillIbLengths(txBuf, start, length);
        icrc.writeIb(txBuf, start, length);
        byte[] packet = new byte[length];
        txBuf.get(start, packet);
        if (logSent) {
            sentLog.add(packet);
        }
        port().addCounter(PortCounter.TX_PACKETS, 1);
        return packet;
    }

    /** A run carried as one unit: what {@code PacketHeaders.run} takes, and a copy of all its packets' payload. */
    record RunUnit(int packets, int ackMask, int lastOpcode, int lastLength, boolean lastSolicited, byte[] payload) {
    }

    /**
     * Puts a run on the wire as the packets it stands for, each with its own BTH (opcode, PSN, AckReq, SE, pad; the
     * first's extension headers only on the first), payload from the run's slices, LRH/GRH and ICRC, so the wire
     * log shows what per-packet calls would have sent; with {@link #deliverRuns} the receiver gets it as one unit.
     */
    private void transmitRun() {
        int packets = tx.runPackets();
        int firstPayload = tx.payloadLength();
        byte[] all = new byte[tx.payload().totalLength()];
        tx.payload().copyTo(ByteBuffer.wrap(all), 0);
        byte[] headers = new byte[tx.headerLength()];
        txBuf.get(BTH_OFFSET, headers);
        int firstOpcode = tx.opcode();
        int operation = firstOpcode & Opcode.OPERATION_MASK;
        boolean send = operation == Opcode.SEND_FIRST || operation == Opcode.SEND_MIDDLE;
        int middle = (firstOpcode & ~Opcode.OPERATION_MASK) | (send ? Opcode.SEND_MIDDLE : Opcode.RDMA_WRITE_MIDDLE);
        boolean migReq = (headers[1] & 0x40) != 0;
        byte[] firstPacket = null;
        int at = 0;
        for (int i = 0; i < packets; i++) {
            boolean last = i == packets - 1;
            int len = i == 0 ? firstPayload : last ? tx.runLastPayloadLength() : firstPayload;
            int op = i == 0 ? firstOpcode : last ? tx.runLastOpcode() : middle;
            int hdrLen;
            if (i == 0) {
                txBuf.put(BTH_OFFSET, headers);
                hdrLen = headers.length;
            } else {
                BthDescriptor.write(txBuf, BTH_OFFSET, op, last && tx.runLastSolicited(), migReq,
                        Packets.padCount(len), tx.pkey(), tx.destQpn(), (tx.runAckMask() >>> i & 1) != 0,
                        (tx.psn() + i) & BthDescriptor.MASK_24);
                hdrLen = BthDescriptor.LENGTH;
            }
            txBuf.put(BTH_OFFSET + hdrLen, all, at, len);
            at += len;
            for (int k = 0; k < Packets.padCount(len); k++) {
                txBuf.put(BTH_OFFSET + hdrLen + len + k, (byte) 0);
            }
            referencedOpcodes.add(op);
            byte[] packet = frame(hdrLen + len + Packets.padCount(len));
            if (i == 0) {
                firstPacket = packet;
            }
            if (!deliverRuns) {
                fabric.send(this, tx.ah().dlid(), packet);
            }
        }
        if (at != all.length) {
            throw new AssertionError("run of " + packets + " packets: payload " + all.length + ", packets " + at);
        }
        if (deliverRuns) {
            fabric.sendRun(this, tx.ah().dlid(), firstPacket, new RunUnit(packets, tx.runAckMask(),
                    tx.runLastOpcode(), tx.runLastPayloadLength(), tx.runLastSolicited(), all));
        }
    }

    /** The receive path of a run carried as one unit: its first packet parsed, the rest described to the headers. */
    void deliverRun(byte[] first, RunUnit run) {
        ByteBuffer buf = ByteBuffer.wrap(first);
        DriverPort port = port();
        port.addCounter(PortCounter.RX_PACKETS, run.packets());
        if (parser.parse(buf, 0, first.length, Framing.IB_LRH, hdr) != RejectReason.OK) {
            port.addCounter(PortCounter.RX_MALFORMED, run.packets());
            return;
        }
        rx.fromHeaders(1, buf, hdr);
        PayloadSlices slices = new PayloadSlices(1);
        slices.add(ByteBuffer.wrap(run.payload()), 0, run.payload().length);
        hdr.payloadSlices(slices).run(run.packets(), run.ackMask(), run.lastOpcode(), run.lastLength(),
                run.lastSolicited());
        DriverQp qp = device.lookupQpnAndRetain(port, hdr.destQp());
        if (qp == null) {
            port.addCounter(PortCounter.RX_MALFORMED, run.packets());
            return;
        }
        rx.batch(batch);
        try {
            transport().receive(qp, buf, hdr, rx);
        } finally {
            rx.batch(null);
            qp.release();
        }
    }

    /** Ends a receive batch ({@link Fabric#batches()}): queues the ACKs it owes, as {@code PacketDriver.endBatch}. */
    void endBatch() {
        if (batch != null) {
            batch.enter();
            try {
                batch.flushAcks();
            } finally {
                batch.leave();
            }
        }
    }

    /** Puts a referenced payload where the copy would be, with the pad the transport wrote after the headers. */
    private void gatherPayload() {
        referencedOpcodes.add(tx.opcode());
        int at = BTH_OFFSET + tx.headerLength();
        byte[] pad = new byte[Packets.padCount(tx.payloadLength())];
        txBuf.get(at, pad);
        int total = tx.payload().copyTo(txBuf, at) - at;
        if (total != tx.payloadLength() || tx.payload().count() > tx.maxSegments()) {
            throw new AssertionError("segments hold " + total + " bytes in " + tx.payload().count() + ": " + tx);
        }
        txBuf.put(at + total, pad);
    }

    /** The receive path: parse, find the QP (or the multicast group), hand the packet to the transport. */
    void deliver(byte[] packet) {
        ByteBuffer buf = ByteBuffer.wrap(packet);
        DriverPort port = port();
        port.addCounter(PortCounter.RX_PACKETS, 1);
        if (parser.parse(buf, 0, packet.length, Framing.IB_LRH, hdr) != RejectReason.OK) {
            port.addCounter(PortCounter.RX_MALFORMED, 1);
            return;
        }
        rx.fromHeaders(1, buf, hdr);
        if (hdr.dlid() >= LrhDescriptor.MULTICAST_LID_BASE && hdr.dlid() != LrhDescriptor.PERMISSIVE_LID) {
            if (!hdr.hasGrh()) {
                port.addCounter(PortCounter.RX_MALFORMED, 1);
                return;
            }
            transport().receiveMulticast(port, hdr.dgid(), hdr.dlid(), buf, hdr, rx);
            return;
        }
        DriverQp qp = device.lookupQpnAndRetain(port, hdr.destQp());
        if (qp == null) {
            port.addCounter(PortCounter.RX_MALFORMED, 1); // unknown QPN
            return;
        }
        rx.batch(batch);
        try {
            transport().receive(qp, buf, hdr, rx);
        } finally {
            rx.batch(null);
            qp.release();
        }
    }

    private void schedule(DriverQp qp) {
        synchronized (scheduled) {
            scheduled.add(qp);
        }
    }

    // ------------------------------------------------------------------ RvtDriver

    @Override
    public String name() {
        return name;
    }

    @Override
    public DriverParams params() {
        DeviceAttributes props = DeviceAttributes.builder().maxQp(64).maxQpWr(4096).maxSendSge(8).maxRecvSge(8)
                .maxSgeRd(8).maxCq(16).maxCqe(1 << 16).maxPd(16).maxAh(64).maxSrq(8).maxSrqWr(1024).maxSrqSge(8)
                .maxMcastGrp(8).maxMcastQpAttach(8).maxTotalMcastQpAttach(64).maxPkeys(16).maxQpRdAtom(16)
                .maxQpInitRdAtom(16).maxResRdAtom(16).maxMrSize(1L << 32).pageSizeCap(4096).build();
        return DriverParams.builder().props(props).lkeyTableSize(8).qpTableSize(16).nports(1).npkeys(4)
                .qpnStart(1).numCompVectors(1).build();
    }

    @Override
    public OperationTable postParms() {
        return OperationTable.standard();
    }

    @Override
    public TimerService timerService() {
        return timers;
    }

    @Override
    public void registered(DriverDevice dev) {
        this.device = dev;
        attach(dev);
        dev.port(1).lid(lid);
        dev.port(1).gidPrefix(GID_PREFIX.subnetPrefix());
    }

    @Override
    public boolean scheduleSend(DriverQp qp) {
        schedule(qp);
        return true;
    }

    @Override
    public boolean scheduleSendNoLock(DriverQp qp) {
        schedule(qp);
        return true;
    }

    @Override
    public void doSend(DriverQp qp) {
        schedule(qp); // deterministic: the test runs the engine
    }

    @Override
    protected PathMtu portMtu() {
        return PathMtu.ofBytes(mtu);
    }

    @Override
    public void flushQpWaiters(DriverQp qp) {
    }

    @Override
    public void stopSendQueue(DriverQp qp) {
        synchronized (scheduled) {
            scheduled.remove(qp);
        }
    }

    @Override
    public void quiesceQp(DriverQp qp) {
    }

    @Override
    public long getGuidBe(DriverDevice rdi, DriverPort port, int guidIndex) {
        return gid().interfaceId();
    }

    @Override
    public int queryPortState(DriverDevice rdi, int portNum, PortAttr props) {
        props.state(PortState.ACTIVE).gidTblLen(1).maxMtu(PathMtu.ofBytes(mtu)).activeMtu(PathMtu.ofBytes(mtu));
        return 0;
    }

    @Override
    public int shutDownPort(DriverDevice rdi, int portNum) {
        return 0;
    }

    @Override
    public void capMaskChg(DriverDevice rdi, int portNum) {
    }

    @Override
    public void notifyNewAh(DriverDevice rdi, AhAttr attr, DriverAh ah) {
        ah.logPmtu(31 - Integer.numberOfLeadingZeros(mtu));
    }

    @Override
    public String toString() {
        return "WireDriver{" + name + ", lid=" + lid + '}';
    }
}
