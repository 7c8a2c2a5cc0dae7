package io.rvt.driver.sim;

import io.rvt.api.AhAttr;
import io.rvt.api.Gid;
import io.rvt.driver.sim.fabric.FabricPort;
import io.rvt.driver.sim.fabric.Frame;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.GrhDescriptor;
import io.rvt.transport.header.LrhDescriptor;
import io.rvt.transport.header.Opcode;
import java.nio.ByteBuffer;

/** How a simulated HCA lays a packet the transport made out in its frame: LRH and GRH before it, the payload. */
final class SimFrames {
    private SimFrames() {
    }

    /**
     * The transport left the payload in the sending region. An RC request's frame keeps pointing there: its work
     * request completes only once the responder has acknowledged it, so the memory cannot change before delivery
     * (a copy that arrives later is a duplicate, whose payload the responder ignores), and the receiving HCA copies
     * the payload straight into its own region: one copy instead of two. Anything else (UC, whose message completes
     * when its last packet leaves; READ responses) is copied into the frame now.
     *
     * @param frame the frame
     * @param buf its buffer
     * @param tx what the transport made
     * @param headroom the bytes before the BTH
     */
    static void placePayload(Frame frame, ByteBuffer buf, TxInfo tx, int headroom) {
        int at = headroom + tx.headerLength();
        int op = tx.opcode();
        if (Opcode.transport(op) == Opcode.RC && (Opcode.isSend(op) || Opcode.isRdmaWrite(op))) {
            frame.payloadAt(at); // the slices are already the frame's
        } else {
            tx.payload().copyTo(buf, at);
            tx.payload().clear();
        }
    }

    /**
     * Writes the LRH and the GRH in front of the BTH.
     *
     * @param buf the frame's buffer
     * @param tx what the transport made (its SL)
     * @param ah the destination's address
     * @param dlid the destination LID
     * @param total the packet's bytes, headers and ICRC included
     * @param port the sending port (source LID and GID)
     * @param dgid the destination GID
     */
    static void writeHeaders(ByteBuffer buf, TxInfo tx, AhAttr ah, int dlid, int total, FabricPort port, Gid dgid) {
        LrhDescriptor.write(buf, 0, 0, tx.sl(), LrhDescriptor.LNH_IBA_GLOBAL, dlid, total / 4, port.lid());
        int afterGrh = total - LrhDescriptor.LENGTH - GrhDescriptor.LENGTH; // BTH, payload and ICRC
        GrhDescriptor.write(buf, LrhDescriptor.LENGTH, ah.trafficClass(), ah.flowLabel(), afterGrh,
                ah.hopLimit() == 0 ? 64 : ah.hopLimit(), port.gid(), dgid);
    }
}
