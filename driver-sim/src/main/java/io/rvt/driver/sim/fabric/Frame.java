package io.rvt.driver.sim.fabric;

import io.rvt.driver.sim.clock.LoopEvent;
import io.rvt.transport.header.PayloadSlices;
import java.nio.ByteBuffer;

/**
 * A packet on the fabric: bytes in a pooled {@link ByteBuffer} (indexes {@code [0, length())}) plus a destination
 * LID. The fabric reads only the length and the LIDs; the bytes are opaque (it never parses transport headers, and
 * only flips a bit when the corruption fault strikes).
 *
 * <p>Lifetime: {@link FramePool#acquire()} (or {@link FabricPort#acquire()}) gives an owned frame; the owner writes
 * the bytes, sets {@link #length(int)} and {@link #dstLid(int)}, and {@link FabricPort#send(Frame) sends} it, which
 * moves ownership to the fabric. The fabric either drops it (back to its pool) or hands it to the receiving port's
 * {@link FrameHandler}, which then owns it and must {@link #release()} it. A frame has one owner at a time; using a
 * frame one does not own throws {@link IllegalStateException}.
 *
 * <p>Set by the fabric when sent: {@link #srcLid()} (the sending port's LID), {@link #timestamp()} (send time on the
 * fabric's clock) and {@link #sequence()} (a fabric-wide number in the order frames entered the fabric; a multicast or
 * duplicated copy gets its own).
 *
 * <p>Threading: not thread-safe; the owner uses it. Hand-offs through the fabric and through {@link FrameQueue} are
 * safely published.
 */
public final class Frame {
    /** The most slices of sender memory a frame may reference ({@link #referencePayload}). */
    public static final int MAX_PAYLOAD_SLICES = 4;
    /** The most packets one frame may carry as a {@link #burst burst}. */
    public static final int MAX_BURST = 32;
    static final int FREE = 0;
    static final int OWNED = 1;
    static final int IN_FABRIC = 2;

    static final int STAGE_SEND = 0;
    static final int STAGE_SWITCH = 1;
    static final int STAGE_DELIVER = 2;

    private final FramePool pool;
    private final ByteBuffer buffer;
    private int length;
    private int srcLid;
    private int dstLid;
    private long sequence;
    private long timestamp;
    /** The sender vouched for the ICRC in the bytes ({@link #seal()}); cleared by any change the fabric makes. */
    private boolean sealed;
    /** Writes the checksum the sender left out ({@link #sealDeferred}); null once written, or if none is pending. */
    private ChecksumWriter deferred;
    /** Payload bytes still in the sender's memory ({@link #referencePayload}), in order. */
    private final PayloadSlices payload = new PayloadSlices(MAX_PAYLOAD_SLICES);
    /** Index in the frame where the slices' bytes belong, one after another. */
    private int payloadAt;
    /** Packets the frame carries: 1, or a burst's ({@link #burst}). */
    private int packets = 1;
    /** A burst's bytes on the wire, all its packets together. */
    private int wireLength;
    /** What the sender says about a burst's packets after the first, for the receiver. */
    private long burstInfo;
    /** The next frame of a train ({@link #then}), or null. */
    Frame next;
    /** A train's packets and bytes on the wire, all its frames together; set on its first frame when it is sent. */
    int trainPackets;
    int trainWire;

    // Fabric-private state; written by the owner (the sender up to send(), then the fabric's delivery thread).
    /** FREE, OWNED or IN_FABRIC. */
    int state = FREE;
    /** The port that sent it. */
    FabricPort source;
    /** The port this copy is being delivered to. */
    FabricPort target;
    /** The forwarder of the fabric it is in. */
    Forwarder forwarder;
    /** Which stage the deterministic event runs next. */
    int stage;
    /** Due time on the receiving port's heap (real-time mode). */
    long due;
    /** The sender's link epoch when it left; a change means the link went down meanwhile. */
    int srcEpoch;
    /** The receiver's link epoch when it entered that link. */
    int dstEpoch;
    /** The event that moves it through the deterministic stages. */
    final LoopEvent event = new LoopEvent() {
        @Override
        protected void onEvent() {
            forwarder.onEvent(Frame.this);
        }

        @Override
        public String toString() {
            return "frame seq=" + sequence + " stage=" + stage;
        }
    };

    Frame(FramePool pool, ByteBuffer buffer) {
        this.pool = pool;
        this.buffer = buffer;
    }

    /**
     * The backing buffer, of {@link #capacity()} bytes. The frame's bytes are at absolute indexes
     * {@code [0, length())}; position and limit are the owner's to use (on delivery they are 0 and {@code length()};
     * the fabric may move them while it owns the frame). Byte order is big-endian unless the owner changes it.
     *
     * @return the buffer (heap or direct, as the pool was built)
     */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** @return the buffer's capacity in bytes (the pool's MTU plus headroom) */
    public int capacity() {
        return buffer.capacity();
    }

    /** @return the number of bytes in the frame */
    public int length() {
        return length;
    }

    /**
     * @param length the number of bytes in the frame, in [0, capacity()]
     * @return this frame
     * @throws IllegalArgumentException if out of range
     * @throws IllegalStateException if the caller's frame is not owned
     */
    public Frame length(int length) {
        checkOwned();
        if (length < 0 || length > buffer.capacity()) {
            throw new IllegalArgumentException("frame length=" + length + " not in [0, " + buffer.capacity() + "]");
        }
        this.length = length;
        return this;
    }

    /**
     * Copies the remaining bytes of {@code src} (without moving its position) to the start of the frame and sets the
     * length.
     *
     * @param src the bytes
     * @return this frame
     * @throws IllegalArgumentException if they do not fit
     */
    public Frame put(ByteBuffer src) {
        checkOwned();
        int n = src.remaining();
        if (n > buffer.capacity()) {
            throw new IllegalArgumentException("frame: " + n + " bytes do not fit capacity " + buffer.capacity());
        }
        buffer.put(0, src, src.position(), n);
        this.length = n;
        return this;
    }

    /**
     * The sender's promise that the ICRC at the end of the bytes was computed over exactly these bytes. A receiver may
     * skip checking the ICRC of a sealed frame, as a host skips the checksum of a packet that never left it (Linux
     * marks such packets on veth and virtio-net {@code CHECKSUM_UNNECESSARY}): the frame crossed the fabric in memory,
     * so checking again would only re-read what was just written. Any change the fabric makes to the bytes (the
     * corruption fault) breaks the seal, so a corrupted frame is always checked, and dropped. Call it after the last
     * write; a frame that is never sealed is always checked.
     *
     * @return this frame
     * @throws IllegalStateException if the caller's frame is not owned
     */
    public Frame seal() {
        checkOwned();
        sealed = true;
        return this;
    }

    /**
     * Seals the frame and leaves its checksum to be written only when someone needs the bytes: checksum offload, as a
     * host's stack leaves a packet's checksum to the NIC (Linux's {@code CHECKSUM_PARTIAL}) and a packet that never
     * leaves the host never gets one. The fabric calls {@code writer} before it records the bytes in its trace,
     * before the corruption fault flips a bit and before it delivers the frame to a handler that does not
     * {@link FrameHandler#acceptsDeferredBytes() accept deferred bytes}; anyone else who owns the frame can call
     * {@link #completeBytes()}. Call it after the last write.
     *
     * @param writer writes the checksum into the frame's bytes
     * @return this frame
     * @throws IllegalStateException if the caller's frame is not owned
     */
    public Frame sealDeferred(ChecksumWriter writer) {
        checkOwned();
        if (writer == null) {
            throw new IllegalArgumentException("writer must not be null");
        }
        sealed = true;
        deferred = writer;
        return this;
    }

    /**
     * Leaves {@code length} payload bytes in the sender's memory instead of copying them into the frame: they belong at
     * index {@code at} of the frame's bytes and are copied there only when someone needs the bytes (as for
     * {@link #sealDeferred}); a handler that {@link FrameHandler#acceptsDeferredBytes() accepts deferred bytes} reads
     * them from {@link #payload()} instead, so the payload is copied once, from sender to receiver, as a NIC's DMA
     * moves it. The sender promises that the memory does not change until the frame is delivered (an RC request: its
     * work request completes only once the receiver acknowledged it). Slices are appended in order.
     *
     * @param at index in the frame where the slice's bytes belong
     * @param src the sender's memory
     * @param index index of the slice's first byte in {@code src}
     * @param length its length
     * @return this frame
     * @throws IllegalStateException if the caller's frame is not owned, or {@value #MAX_PAYLOAD_SLICES} slices are set
     * @throws IllegalArgumentException if the slice does not fit the frame's capacity or does not follow the last
     */
    public Frame referencePayload(int at, ByteBuffer src, int index, int length) {
        checkOwned();
        if (at < 0 || length < 0 || at > buffer.capacity() - length) {
            throw new IllegalArgumentException("frame: slice of " + length + " bytes at " + at
                    + " does not fit capacity " + buffer.capacity());
        }
        if (payload.count() == 0) {
            payloadAt = at;
        } else if (at != payloadAt + payload.totalLength()) {
            throw new IllegalArgumentException("frame: slice at " + at + " does not follow the payload at "
                    + payloadAt + " (" + payload.totalLength() + " bytes)");
        }
        if (!payload.add(src, index, length)) {
            throw new IllegalStateException("frame: more than " + MAX_PAYLOAD_SLICES + " payload slices");
        }
        return this;
    }

    /**
     * The payload slices of the frame, for a sender that lets the transport record a packet's payload straight into
     * them ({@code TxInfo.payloadInto}) and then says where they belong ({@link #payloadAt(int)}), and for a receiver
     * that reads them where they lie ({@code PacketHeaders.payloadSlices}). The same rules as
     * {@link #referencePayload}.
     *
     * @return the slices (empty when the payload is in the frame's bytes)
     */
    public PayloadSlices payload() {
        return payload;
    }

    /**
     * @param at index in the frame where the bytes of {@link #payload()} belong, one slice after another
     * @return this frame
     * @throws IllegalStateException if the caller's frame is not owned
     * @throws IllegalArgumentException if the payload does not fit there
     */
    public Frame payloadAt(int at) {
        checkOwned();
        // a burst's payload is only ever read from its slices (completeBytes refuses), so only where it starts counts
        int inFrame = packets > 1 ? 0 : payload.totalLength();
        if (at < 0 || at > buffer.capacity() - inFrame) {
            throw new IllegalArgumentException("frame: payload of " + payload.totalLength() + " bytes at " + at
                    + " does not fit capacity " + buffer.capacity());
        }
        payloadAt = at;
        return this;
    }

    /** @return how many payload slices are still in the sender's memory ({@link #payload()}) */
    public int payloadSlices() {
        return payload.count();
    }

    /** @return true if payload slices or the checksum are still left to write ({@link #completeBytes()}) */
    public boolean hasDeferredBytes() {
        return payload.count() != 0 || deferred != null;
    }

    /**
     * Puts every deferred byte into the frame now: the payload slices, then the checksum over them (nothing if none is
     * pending). The frame's owner calls it.
     */
    public void completeBytes() {
        if (packets > 1) {
            throw new IllegalStateException("a burst of " + packets + " packets has no bytes of its own to complete: "
                    + this);
        }
        payload.copyTo(buffer, payloadAt);
        payload.clear();
        ChecksumWriter w = deferred;
        if (w != null) {
            deferred = null;
            w.write(this);
        }
    }

    /**
     * Makes the frame a <em>burst</em>: the packet in its bytes is the first of {@code packets} consecutive packets of
     * one message from this port to one destination, whose payloads all lie in the frame's
     * {@link #payload() slices} (segmentation offload, as Linux hands a NIC one GSO packet and a receiving NIC hands
     * the stack one GRO packet). The fabric carries it as one unit but counts, times and drops it as
     * {@code packets} frames of {@code wireLength} bytes together; it delivers it only to a handler that
     * {@link FrameHandler#acceptsBursts() accepts bursts}. A sender builds one only where
     * {@link Fabric#burstLimit(FabricPort, int)} allows it: no trace and no faults on either link, so everything the
     * fabric observes per frame stays per packet. The rest of the packets' headers are the sender's and receiver's
     * business ({@code info}). Call it before {@link #payloadAt(int)} (a burst's payload does not fit the frame's
     * buffer, and never has to) and before sending.
     *
     * @param packets the packets, 2 to {@value #MAX_BURST}
     * @param wireLength their bytes on the wire together, at least {@link #length()}
     * @param info what the receiver needs to know of the packets after the first (opaque to the fabric)
     * @return this frame
     * @throws IllegalArgumentException if out of range
     * @throws IllegalStateException if the caller's frame is not owned
     */
    public Frame burst(int packets, int wireLength, long info) {
        checkOwned();
        if (packets < 2 || packets > MAX_BURST || wireLength < length || wireLength <= 0) {
            throw new IllegalArgumentException("burst of " + packets + " packets (2.." + MAX_BURST + "), "
                    + wireLength + " bytes on the wire (more than 0, at least the frame's " + length + ")");
        }
        this.packets = packets;
        this.wireLength = wireLength;
        this.burstInfo = info;
        return this;
    }

    /** @return the packets the frame carries: 1, or a {@link #burst burst}'s */
    public int packets() {
        return packets;
    }

    /** @return the bytes the frame stands for on the wire: {@link #length()}, or a burst's packets' together */
    public int wireLength() {
        return packets == 1 ? length : wireLength;
    }

    /** @return what the sender of a {@link #burst burst} said about its later packets; 0 for a single packet */
    public long burstInfo() {
        return burstInfo;
    }

    /**
     * Makes {@code next} travel with this frame as the next one of a <em>train</em>: sent by one
     * {@link FabricPort#send(Frame)} of the train's first frame, the frames of a train take one place in the port's
     * queue and one pass through the switch and the receiver's link, and are delivered one after another in one
     * delivery run (a real-time fabric's segmentation offload across frames, as GSO/GRO batch packets of one flow);
     * each is still its own frame to the handler and in every counter. Only for one unicast destination, on a
     * real-time fabric whose {@link Fabric#burstLimit} allows bursts (no trace, no faults): the fabric applies no
     * fault to a train.
     *
     * @param next an owned frame with the same destination, in no train yet
     * @return {@code next}, to chain the one after it
     * @throws IllegalStateException if either frame is not owned, this one already has a next one, or {@code next}
     *         is in a train
     */
    public Frame then(Frame next) {
        checkOwned();
        next.checkOwned();
        if (this.next != null || next.next != null || next == this) {
            throw new IllegalStateException("frame " + next + " cannot follow " + this + ": one of them is in a train");
        }
        this.next = next;
        return next;
    }

    /** @return the next frame of this frame's train ({@link #then}), or null */
    public Frame next() {
        return next;
    }

    /** @return true if the sender {@link #seal() sealed} the frame and nothing changed its bytes since */
    public boolean isSealed() {
        return sealed;
    }

    /** The fabric is about to change the bytes: the checksum is written first, and no longer vouches for them. */
    void breakSeal() {
        completeBytes();
        sealed = false;
    }

    /** @return the sending port's LID (set by the fabric on send; 0 before) */
    public int srcLid() {
        return srcLid;
    }

    /** @return the destination LID: unicast 0x0001..0xBFFF or multicast 0xC000..0xFFFE */
    public int dstLid() {
        return dstLid;
    }

    /**
     * @param lid the destination LID, in [0, 0xFFFF] (frames to LIDs no port has are dropped and counted)
     * @return this frame
     * @throws IllegalArgumentException if out of range
     */
    public Frame dstLid(int lid) {
        checkOwned();
        if (lid < 0 || lid > 0xFFFF) {
            throw new IllegalArgumentException("dstLid=0x" + Integer.toHexString(lid) + " not a 16-bit LID");
        }
        this.dstLid = lid;
        return this;
    }

    /** @return the fabric-wide sequence number given when the frame entered the fabric (0 before) */
    public long sequence() {
        return sequence;
    }

    /**
     * @return the time the frame was sent, in ns of the fabric's clock: in real-time mode, when the fabric's agent took
     *         it from the sending port's queue (0 until then)
     */
    public long timestamp() {
        return timestamp;
    }

    /** @return the pool the frame returns to */
    public FramePool pool() {
        return pool;
    }

    /**
     * Returns the frame to its pool; the caller must not touch it afterwards. A frame of a train leaves it (its later
     * frames stay the caller's: take {@link #next()} first).
     *
     * @throws IllegalStateException if the caller does not own it (released twice, or after sending)
     */
    public void release() {
        checkOwned();
        next = null; // a train's later frames are released one by one (take next() first)
        payload.clear(); // keep no sender's memory reachable
        state = FREE;
        pool.recycle(this);
    }

    /** @return true while a caller owns the frame (acquired or delivered, not yet sent or released) */
    public boolean isOwned() {
        return state == OWNED;
    }

    @Override
    public String toString() {
        return "Frame{seq=" + sequence + ", src=0x" + Integer.toHexString(srcLid) + ", dst=0x"
                + Integer.toHexString(dstLid) + ", len=" + length + (packets > 1 ? ", burst of " + packets : "")
                + ", t=" + timestamp + '}';
    }

    // ---- fabric side ----

    private void checkOwned() {
        if (state != OWNED) {
            throw new IllegalStateException("frame not owned by the caller (state="
                    + (state == FREE ? "free" : "in fabric") + "): " + this);
        }
    }

    /** Resets the header fields when the pool hands the frame out. */
    void reset() {
        length = 0;
        srcLid = 0;
        dstLid = 0;
        sequence = 0;
        timestamp = 0;
        sealed = false;
        deferred = null;
        payload.clear(); // keep no sender's memory reachable
        packets = 1;
        wireLength = 0;
        burstInfo = 0;
        next = null;
        source = null;
        target = null;
        forwarder = null;
        buffer.clear();
    }

    void stampSend(int srcLid, long timestamp, FabricPort source, Forwarder forwarder) {
        this.srcLid = srcLid;
        this.timestamp = timestamp;
        this.source = source;
        this.forwarder = forwarder;
    }

    void stampTime(long timestamp) {
        this.timestamp = timestamp;
    }

    void sequence(long sequence) {
        this.sequence = sequence;
    }

    /** Copies header fields and bytes of {@code from} into this (fabric-owned) frame. */
    void copyFrom(Frame from) {
        length = from.length;
        srcLid = from.srcLid;
        dstLid = from.dstLid;
        timestamp = from.timestamp;
        source = from.source;
        forwarder = from.forwarder;
        srcEpoch = from.srcEpoch;
        sealed = from.sealed; // the same bytes
        deferred = from.deferred; // and the same checksum to write
        payload.copyFrom(from.payload); // and the same sender memory
        payloadAt = from.payloadAt;
        packets = from.packets;
        wireLength = from.wireLength;
        burstInfo = from.burstInfo;
        buffer.put(0, from.buffer, 0, from.length);
    }

    /** The fabric drops the frame: back to the pool. */
    void releaseFromFabric() {
        payload.clear(); // keep no sender's memory reachable
        state = FREE;
        source = null;
        target = null;
        pool.recycle(this);
    }
}
