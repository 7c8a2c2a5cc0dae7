package io.rvt.driver.sim;

import io.rvt.api.AhAttr;
import io.rvt.api.Gid;
import io.rvt.api.PortCounter;
import io.rvt.api.QpState;
import io.rvt.api.spi.DriverQp;
import io.rvt.driver.sim.fabric.ChecksumWriter;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricPort;
import io.rvt.driver.sim.fabric.Frame;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.Icrc;
import java.nio.ByteBuffer;

/**
 * The wire side of a simulated HCA's send engine: puts each packet the transport makes for a QP into a frame of the
 * QP's port (a burst of a message's packets when the fabric takes them, {@link SimBursts}), gathers one drain's frames
 * into a train ({@link SimTrain}) and counts what a port took as sent and what it refused as dropped.
 */
final class SimTransmitter {
    private static final int HEADROOM = SimDriver.HEADROOM;

    private final SimDriver driver;
    private final Fabric fabric;
    private final FabricPort[] ports;
    /** Writes the ICRC of a frame this HCA sent, when the fabric needs its bytes ({@link Frame#sealDeferred}). */
    private final ChecksumWriter icrcWriter;

    SimTransmitter(SimDriver driver, Fabric fabric, FabricPort[] ports) {
        this.driver = driver;
        this.fabric = fabric;
        this.ports = ports;
        this.icrcWriter = f -> driver.sendScratch().icrc.writeIb(f.buffer(), 0, f.length());
    }

    /**
     * Makes the QP's next packet (or burst) into a frame and sends it, or adds it to the drain's train.
     *
     * @return 1 if a packet was sent, 0 if there was nothing to send, -1 if no frame was free
     */
    int sendPacket(SimQp s, SimScratch sc) {
        DriverQp qp = s.qp;
        int portNum = qp.portNum() != 0 ? qp.portNum() : 1;
        FabricPort port = ports[portNum - 1];
        Frame frame = s.spare;
        if (frame != null) {
            s.spare = null;
            if (frame.pool() != port.pool()) { // the QP moved to another port
                frame.release();
                frame = null;
            }
        }
        if (frame == null) {
            frame = port.acquire();
            if (frame == null) {
                if (qp.state() == QpState.ERR) {
                    flushWithoutFrame(qp, portNum, sc); // a QP in ERR sends nothing: its flush needs no frame
                    return 0;
                }
                s.waitPort = portNum;
                return -1;
            }
        }
        TxInfo tx = sc.tx;
        ByteBuffer buf = frame.buffer();
        tx.payloadInto(frame.payload()); // a referenced payload is recorded in the frame itself
        tx.runLimit(SimBursts.limit(fabric, s, qp, port));
        int n = driver.wireTransport().makePacket(qp, buf, HEADROOM, tx);
        if (n <= 0) {
            s.spare = frame; // nothing to send: keep it for the next packet
            return 0;
        }
        int packets = tx.runPackets();
        AhAttr ah = tx.ah();
        int dlid = ah.dlid();
        if (dlid == 0 && ah.isGlobal()) {
            dlid = lidOf(ah.dgid()); // a GID-only address (rvt-cm's first REQ): the fabric routes it as an SM would
        }
        int total = HEADROOM + n + Icrc.LENGTH;
        int wire = total;
        if (packets > 1) {
            wire = tx.runLength() + packets * (HEADROOM + Icrc.LENGTH);
            if (dlid != s.burstDlid && fabric.burstLimit(port, dlid) < packets) {
                // The QP's path changed between the limit's look-up and the packet: this route takes no bursts.
                // Lost on the way, as a full queue loses a frame (RC resends them one per frame, or burst again).
                s.spare = frame;
                frame.payload().clear();
                driver.device().port(portNum).addCounter(PortCounter.PKT_DROPS, packets);
                return 1;
            }
            frame.burst(packets, wire, SimBursts.describe(tx));
        }
        if (tx.isPayloadByReference()) {
            SimFrames.placePayload(frame, buf, tx, HEADROOM);
        }
        SimFrames.writeHeaders(buf, tx, ah, dlid, total, port, ah.isGlobal() ? ah.dgid() : gidOf(dlid));
        // ICRC offload: written only if the fabric or a receiver needs the bytes (a receiving SimDriver does not)
        frame.length(total).dstLid(dlid).sealDeferred(icrcWriter);
        SimTrain train = sc.train;
        if (!train.isEmpty() && !train.takes(s, port, dlid)) {
            sendTrain(train);
        }
        if (s.burstLimit > 1 && dlid == s.burstDlid && port == s.burstPort && !(train.isEmpty() && tx.isDrained())) {
            // bursts allowed: so are trains (packetsOut sends it); a drain's only frame goes straight to the port
            train.add(s, port, portNum, frame, packets, wire);
            return 1;
        }
        if (!port.send(frame)) {
            // The port's queue is full or the port closed: the packet is lost on the way (RC resends it).
            frame.release();
            driver.device().port(portNum).addCounter(PortCounter.PKT_DROPS, packets);
            return 1;
        }
        driver.countSentPackets(s, portNum, packets, wire);
        return 1;
    }

    /** The drain's frames go to the fabric as one train ({@link SimTrain}) before another thread may drain the QP. */
    void packetsOut(SimScratch sc) {
        if (!sc.train.isEmpty()) {
            sendTrain(sc.train);
        }
    }

    private void sendTrain(SimTrain t) {
        if (t.send()) {
            driver.countSentPackets(t.qp(), t.portNum(), t.packets(), t.wire());
        } else { // the port's queue is full or the port closed: lost on the way (RC resends them)
            driver.device().port(t.portNum()).addCounter(PortCounter.PKT_DROPS, t.packets());
        }
        t.clear();
    }

    /**
     * Runs the transport on a QP in ERR with a scratch buffer instead of a frame: it flushes the send queue (the
     * WQEs complete with WR_FLUSH_ERR and let go of their regions) and builds no packet. Without this, a QP that went
     * to ERR while its port's frames were all in flight would flush only once one came back, and {@code deregMr}
     * would wait for the network.
     */
    private void flushWithoutFrame(DriverQp qp, int portNum, SimScratch sc) {
        if (sc.flushBuffer == null) {
            sc.flushBuffer = ByteBuffer.allocate(fabric.maxFrameSize()); // once per thread
        }
        sc.tx.payloadInto(null); // not into a frame: the last one may be on its way
        if (driver.wireTransport().makePacket(qp, sc.flushBuffer, HEADROOM, sc.tx) > 0) {
            driver.device().port(portNum).addCounter(PortCounter.PKT_DROPS, 1); // not expected in ERR: lost, never sent
        }
    }

    /** @return the LID of the port with {@code gid}, or 0 (dropped by the fabric) if no port has it */
    private int lidOf(Gid gid) {
        return fabric.port(gid).map(FabricPort::lid).orElse(0);
    }

    private Gid gidOf(int lid) {
        FabricPort p = lid < Fabric.MULTICAST_FIRST ? fabric.port(lid) : null;
        return p != null ? p.gid() : Gid.ZERO;
    }
}
