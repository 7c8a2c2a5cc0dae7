package io.rvt.driver.sim;

import io.rvt.driver.sim.fabric.FabricPort;
import io.rvt.driver.sim.fabric.Frame;

/**
 * The frames one drain of a QP made for one destination, held by the sending thread until the drain hands them to the
 * fabric as one train ({@link Frame#then}, {@code PacketDriver.packetsOut}): one place in the port's queue, one pass
 * through the switch, one delivery run. Their TX counts wait with them, so a train the port refuses is counted as
 * dropped, never as sent, as a single frame would be.
 */
final class SimTrain {
    /** The most frames of one train. */
    static final int MAX_FRAMES = 32;

    private Frame first;
    private Frame last;
    private int frames;
    private int packets;
    private int wire;
    private SimQp qp;
    private FabricPort port;
    private int portNum;

    /**
     * @param s the QP whose drain makes the frame
     * @param p the port it leaves from
     * @param dlid its destination
     * @return true if a frame with these may join the train as it is (false when empty, full or for elsewhere)
     */
    boolean takes(SimQp s, FabricPort p, int dlid) {
        return frames > 0 && frames < MAX_FRAMES && qp == s && port == p && first.dstLid() == dlid;
    }

    /** @return true if no frame waits */
    boolean isEmpty() {
        return frames == 0;
    }

    /**
     * Adds a frame at the end (the caller made sure it {@link #takes} it, or that the train is empty).
     *
     * @param s the QP
     * @param p the port
     * @param num the port's number
     * @param f the frame, owned, its destination set
     * @param fPackets the packets it carries
     * @param fWire their bytes on the wire
     */
    void add(SimQp s, FabricPort p, int num, Frame f, int fPackets, int fWire) {
        if (frames == 0) {
            first = f;
            qp = s;
            port = p;
            portNum = num;
        } else {
            last.then(f);
        }
        last = f;
        frames++;
        packets += fPackets;
        wire += fWire;
    }

    /**
     * Hands the train to its port ({@link FabricPort#send}); if the port refuses it (queue full, port closed) its
     * frames go back to their pool.
     *
     * @return true if sent
     */
    boolean send() {
        if (port.send(first)) {
            return true;
        }
        for (Frame f = first; f != null;) {
            Frame n = f.next();
            f.release();
            f = n;
        }
        return false;
    }

    SimQp qp() {
        return qp;
    }

    FabricPort port() {
        return port;
    }

    int portNum() {
        return portNum;
    }

    int packets() {
        return packets;
    }

    int wire() {
        return wire;
    }

    /** Forgets the frames (sent, or released by the caller). */
    void clear() {
        first = null;
        last = null;
        frames = 0;
        packets = 0;
        wire = 0;
        qp = null;
        port = null;
    }
}
