package io.rvt.cm.impl;

import io.rvt.api.AccessFlag;
import io.rvt.api.AsyncEventHandler;
import io.rvt.api.CompletionQueue;
import io.rvt.api.CqNotify;
import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PortAttr;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.ConnectionManager;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;

/**
 * The MAD path of one device's CM: a PD, one CQ, a registered buffer of receive and send slots, and the GSI QP of
 * every port, in RTS with Q_Key 0x80010000 and its receives posted. It sends a MAD to a peer's GSI QP and hands each
 * well-formed MAD it receives to the engine; everything runs under the engine's monitor.
 */
final class GsiChannel {
    private static final System.Logger LOG = System.getLogger(GsiChannel.class.getName());

    /** Receive slots per port: a 40-byte GRH area and a 256-byte MAD each. */
    static final int RECV_SLOTS = 64;
    static final int RECV_SLOT_BYTES = 40 + CmMad.SIZE;
    /** Send slots shared by the ports; a MAD that finds none is dropped (and retransmitted like a lost one). */
    static final int SEND_SLOTS = 128;
    private static final long RECV_TAG = 1L << 40;

    /** Where the GSI path hands a received MAD: the port, the sender's GID (from the GRH) and LID. */
    interface MadSink {
        void onMad(GsiPort port, Gid sgid, int slid, CmMad mad);
    }

    /** The QPN of the GSI QP, the only QP CM MADs come from (IBTA 13.5.1; ib_cm answers QP1 only). */
    static final int GSI_QPN = 1;

    private final Device device;
    private final MadSink sink;
    private final CmCounters counters;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private ByteBuffer buf;
    private MemoryRegion mr;
    private GsiPort[] ports;
    private int sendBase;
    private final ArrayDeque<Integer> freeSend = new ArrayDeque<>();
    private final SendWorkRequest swr = new SendWorkRequest(1);
    private final RecvWorkRequest rwr = new RecvWorkRequest(1);
    private final WorkCompletion wc = new WorkCompletion();
    private final CmMad rx = new CmMad();
    /** A receive came back flushed: a GSI QP is in ERR (its device is being removed, or broke). */
    private boolean receivesFlushed;

    GsiChannel(Device device, MadSink sink, CmCounters counters) {
        this.device = device;
        this.sink = sink;
        this.counters = counters;
    }

    /** Allocates the PD, the CQ (completions to {@code onCompletions}) and the registered slots. */
    void allocate(Runnable onCompletions, AsyncEventHandler onEvent) {
        int n = device.portCount();
        pd = device.allocPd();
        cq = device.createCq(n * (RECV_SLOTS + SEND_SLOTS) + SEND_SLOTS, 0, c -> onCompletions.run(), onEvent);
        sendBase = n * RECV_SLOTS * RECV_SLOT_BYTES;
        buf = ByteBuffer.allocateDirect(sendBase + SEND_SLOTS * CmMad.SIZE).order(ByteOrder.BIG_ENDIAN);
        mr = pd.regMr(buf, AccessFlag.LOCAL_WRITE.bit());
        for (int i = 0; i < SEND_SLOTS; i++) {
            freeSend.add(i);
        }
        ports = new GsiPort[n];
    }

    /** Brings up every port's GSI QP and posts its receives; the engine's monitor held. */
    void openPorts(AsyncEventHandler onEvent) {
        for (int p = 1; p <= ports.length; p++) {
            QpInitAttr init = new QpInitAttr();
            init.cap().maxSendWr(SEND_SLOTS).maxRecvWr(RECV_SLOTS).maxSendSge(1).maxRecvSge(1);
            QueuePair gsi = pd.createQp(init.qpType(QpType.GSI).portNum(p).sendCq(cq).recvCq(cq)
                    .eventHandler(onEvent));
            gsi.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).qkey(ConnectionManager.GSI_QKEY),
                    QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.QKEY));
            gsi.modifyQp(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE.bit());
            gsi.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(0),
                    QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
            PortAttr pa = device.queryPort(p, new PortAttr());
            GsiPort port = new GsiPort(p, gsi, pa, device.queryGid(p, 0), device.queryPkey(p, 0),
                    (p - 1) * RECV_SLOTS * RECV_SLOT_BYTES, pd);
            ports[p - 1] = port;
            for (int s = 0; s < RECV_SLOTS; s++) {
                postRecv(port, s);
            }
        }
    }

    /** @return true once a receive of a GSI QP came back flushed (the QP is in ERR: its device is going away) */
    boolean receivesFlushed() {
        return receivesFlushed;
    }

    /** Arms the CQ for the next completion. */
    void arm() {
        cq.reqNotifyCq(CqNotify.NEXT_COMP.bit());
    }

    /** @return the number of HCA ports */
    int portCount() {
        return ports.length;
    }

    /** @return port {@code num} (1-based) */
    GsiPort port(int num) {
        return ports[num - 1];
    }

    private void postRecv(GsiPort port, int slot) {
        rwr.wrId(RECV_TAG | ((long) port.num << 16) | slot).next(null)
                .sge(mr, port.recvBase + slot * RECV_SLOT_BYTES, RECV_SLOT_BYTES);
        try {
            port.gsi.postRecv(rwr);
        } catch (VerbsException e) {
            LOG.log(System.Logger.Level.DEBUG, "rvt-cm: cannot repost a GSI receive on " + device.name() + " port "
                    + port.num + ": " + e.getMessage());
        }
    }

    /**
     * Takes every completion and re-arms the CQ; the engine's monitor held.
     *
     * @throws VerbsException if the CQ fails (the device went away)
     */
    void pollAll() {
        do {
            while (cq.pollCq(wc)) {
                onCompletion(wc);
            }
        } while (cq.reqNotifyCq(CqNotify.NEXT_COMP.bit() | CqNotify.REPORT_MISSED_EVENTS.bit()) > 0);
    }

    /**
     * Takes completions until every MAD posted has completed or the deadline passes; receives taken meanwhile are
     * dropped (the CM is closing). A DREQ posted just before the close must be on the wire before its GSI QP is
     * destroyed, which flushes what is still queued: a driver may leave a post to the posting thread's next progress
     * (driver-jni does), which this wait's empty polls are. Bounded by a number of polls, not by a clock: on a
     * deterministic fabric each empty poll runs the fabric, and a wait that ended by wall-clock time would make the
     * replay depend on timing. The engine's monitor held.
     *
     * @param maxEmptyPolls the empty polls after which the rest is given up
     * @return true if no MAD send was outstanding at the end
     * @throws VerbsException if the CQ fails (the device went away)
     */
    boolean awaitSends(int maxEmptyPolls) {
        int empty = 0;
        while (freeSend.size() < SEND_SLOTS) {
            if (cq.pollCq(wc)) {
                long id = wc.wrId();
                if ((id & RECV_TAG) == 0) {
                    freeSend.add((int) id);
                }
            } else if (++empty >= maxEmptyPolls) {
                return false;
            } else {
                Thread.onSpinWait();
            }
        }
        return true;
    }

    private void onCompletion(WorkCompletion c) {
        long id = c.wrId();
        if ((id & RECV_TAG) == 0) {
            freeSend.add((int) id);
            if (c.status() != WcStatus.SUCCESS && c.status() != WcStatus.WR_FLUSH_ERR) {
                counters.sendDropped();
            }
            return;
        }
        int portNum = (int) (id >>> 16) & 0xFF;
        int slot = (int) id & 0xFFFF;
        GsiPort port = portNum >= 1 && portNum <= ports.length ? ports[portNum - 1] : null;
        if (port == null || c.status() != WcStatus.SUCCESS) {
            receivesFlushed |= c.status() == WcStatus.WR_FLUSH_ERR;
            return; // flushed: the QP is going away
        }
        int at = port.recvBase + slot * RECV_SLOT_BYTES;
        counters.received();
        if (c.opcode() != WcOpcode.RECV || c.byteLen() < RECV_SLOT_BYTES
                || !rx.decode(buf, at + 40, CmMad.SIZE)) {
            counters.dropped(CmCounters.Drop.MALFORMED);
        } else if (c.srcQp() != GSI_QPN) {
            // a UD QP given the GSI Q_Key: not a CM, whatever its MAD says
            counters.dropped(CmCounters.Drop.NOT_FROM_GSI);
        } else {
            Gid sgid = Gid.read(buf, at + 8);
            try {
                sink.onMad(port, sgid, c.slid(), rx);
            } catch (RuntimeException e) {
                counters.dropped(CmCounters.Drop.FAILED);
                LOG.log(System.Logger.Level.WARNING, "rvt-cm: " + CmMad.name(rx.attrId) + " from " + sgid
                        + " failed", e);
            }
        }
        postRecv(port, slot);
    }

    /**
     * Sends a MAD from {@code port} to a peer's GSI QP; a MAD that cannot be posted is lost (and retried).
     *
     * @return false if posting failed (the caller checks whether the device is gone)
     */
    boolean send(GsiPort port, Gid dgid, int dlid, CmMad mad) {
        Integer slot = freeSend.poll();
        if (slot == null) {
            counters.sendDropped();
            return true;
        }
        int off = sendBase + slot * CmMad.SIZE;
        mad.encode(buf, off);
        try {
            swr.wrId(slot).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit()).next(null)
                    .sge(mr, off, CmMad.SIZE).ah(port.ah(dgid, dlid)).remoteQpn(1)
                    .remoteQkey(ConnectionManager.GSI_QKEY).pkeyIndex(0);
            port.gsi.postSend(swr);
            counters.sent();
            return true;
        } catch (VerbsException e) {
            freeSend.add(slot);
            counters.sendDropped();
            return false;
        }
    }

    /** Destroys the address handles, GSI QPs, region, CQ and PD (whatever was made), each step quietly. */
    void release() {
        if (ports != null) {
            for (GsiPort p : ports) {
                if (p != null) {
                    p.destroyAhs();
                    QpSetup.quietly(p.gsi::destroyQp);
                }
            }
        }
        if (mr != null) {
            QpSetup.quietly(mr::deregMr);
        }
        if (cq != null) {
            QpSetup.quietly(cq::destroyCq);
        }
        if (pd != null) {
            QpSetup.quietly(pd::deallocPd);
        }
    }
}
