package io.rvt.transport.engine;

import io.rvt.transport.PacketDriver;
import io.rvt.transport.header.GrhDescriptor;
import io.rvt.transport.header.PacketHeaders;
import java.nio.ByteBuffer;

/**
 * What a driver knows about a received packet from its framing, beyond the transport headers: the port, the source
 * and destination LIDs and the SL (from the LRH; 0 under RoCEv2), and where the 40-byte GRH is, if the packet had one
 * (native InfiniBand: inside the packet; RoCEv2: a GRH the driver synthesised from the IP header, as rxe does).
 * UD receive completions report these ({@code slid}, {@code sl}, {@code dlid_path_bits}, {@code port_num}), and the
 * GRH goes into the first 40 bytes of the receive buffer.
 *
 * <p>Mutable and reused: a driver keeps one per receive loop and refills it for every packet.
 */
public final class RxInfo {
    private int portNum;
    private int slid;
    private int dlid;
    private int sl;
    private ByteBuffer grhBuffer;
    private int grhOffset;
    /** The receive batch the packet is part of ({@link PacketDriver#receive}), else null. */
    private Batch batch;

    /** Creates an empty instance. */
    public RxInfo() {
    }

    /**
     * Asks the driver to call {@code st}'s {@link QpProtocolState#flushDeferredAck()} at the end of the receive batch
     * this packet belongs to, so that the ACKs a batch owes a QP are queued once, with one {@code sendLock}, rather
     * than once per packet (hfi1's deferred ACKs, {@code rc_defered_ack}). The engine calls it once per batch and QP,
     * with {@code recvLock} held.
     *
     * @param st the QP's state
     * @return true if the driver will, false if the packet came outside a batch (or the batch has no room): queue
     *         the ACK now
     */
    public boolean deferAck(QpProtocolState st) {
        Batch b = batch;
        return b != null && b.deferAck(st);
    }

    /**
     * Names the receive batch the packets handed to the transport with this instance belong to, or none: what
     * {@link PacketDriver#receive} does around each packet of a batch (rvt-transport's {@code Delivery}).
     *
     * @param b the batch, or null outside one
     * @return this
     */
    public RxInfo batch(Batch b) {
        this.batch = b;
        return this;
    }

    /**
     * A receive batch that takes the ACKs its packets owe and queues them once at its end, one per QP (hfi1's
     * deferred ACKs): {@link #deferAck} asks it. rvt-transport's {@code Delivery} is one.
     */
    public interface Batch {
        /**
         * @param st the state of a QP whose ACK the batch is to queue at its end
         *        ({@link QpProtocolState#queueDeferredAck()})
         * @return false if the batch has no room: the engine queues the ACK now
         */
        boolean deferAck(QpProtocolState st);
    }

    /**
     * Fills the fields from a packet parsed with native InfiniBand framing: LIDs and SL from its LRH, the GRH (if
     * any) inside {@code buf}.
     *
     * @param portNum the port the packet arrived on
     * @param buf the buffer the packet was parsed from
     * @param hdr its headers
     * @return this
     */
    public RxInfo fromHeaders(int portNum, ByteBuffer buf, PacketHeaders hdr) {
        this.portNum = portNum;
        this.slid = hdr.slid();
        this.dlid = hdr.dlid();
        this.sl = hdr.sl();
        if (hdr.hasGrh()) {
            grhBuffer = buf;
            grhOffset = hdr.grhOffset();
        } else {
            grhBuffer = null;
            grhOffset = -1;
        }
        return this;
    }

    /**
     * Sets every field.
     *
     * @param portNum the port the packet arrived on
     * @param slid the source LID (0 if the framing has none)
     * @param dlid the destination LID (0 if the framing has none)
     * @param sl the service level
     * @param grhBuffer the buffer holding the packet's GRH, or null if it had none
     * @param grhOffset index of the GRH's first byte in {@code grhBuffer}
     * @return this
     */
    public RxInfo set(int portNum, int slid, int dlid, int sl, ByteBuffer grhBuffer, int grhOffset) {
        this.portNum = portNum;
        this.slid = slid;
        this.dlid = dlid;
        this.sl = sl;
        this.grhBuffer = grhBuffer;
        this.grhOffset = grhBuffer == null ? -1 : grhOffset;
        return this;
    }

    /** @return the port the packet arrived on (1-based) */
    public int portNum() {
        return portNum;
    }

    /** @return the source LID */
    public int slid() {
        return slid;
    }

    /** @return the destination LID */
    public int dlid() {
        return dlid;
    }

    /** @return the service level */
    public int sl() {
        return sl;
    }

    /** @return true if the packet carried a GRH */
    public boolean hasGrh() {
        return grhBuffer != null;
    }

    /** @return the buffer holding the GRH, or null */
    public ByteBuffer grhBuffer() {
        return grhBuffer;
    }

    /** @return index of the GRH in {@link #grhBuffer()}, or -1 */
    public int grhOffset() {
        return grhOffset;
    }

    /** @return the GRH length, {@value GrhDescriptor#LENGTH} bytes */
    public static int grhLength() {
        return GrhDescriptor.LENGTH;
    }

    @Override
    public String toString() {
        return "RxInfo{port=" + portNum + ", slid=" + slid + ", dlid=" + dlid + ", sl=" + sl + ", grh=" + hasGrh()
                + '}';
    }
}
