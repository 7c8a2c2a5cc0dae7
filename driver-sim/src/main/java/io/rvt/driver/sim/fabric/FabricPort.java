package io.rvt.driver.sim.fabric;

import io.rvt.api.Gid;
import io.rvt.api.spi.agent.Agent;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A port attached to a {@link Fabric}: what a simulated HCA port holds. It owns an address (a 16-bit unicast LID and
 * a 128-bit {@link Gid}), a {@link Link}, a {@link FramePool} to send from, {@link Counters}, and the
 * {@link FrameHandler} that receives its frames. Made by {@link Fabric#newPort()}.
 *
 * <p>Threading: {@link #send(Frame)}, {@link #acquire()} and the setters may be called from any thread; the handler
 * runs on the fabric's delivery thread.
 */
public final class FabricPort implements AutoCloseable {
    private final Fabric fabric;
    private final String name;
    private final int lid;
    private final long guid;
    private final Gid gid;
    private final int index;
    private final Link link;
    private final FramePool pool;
    final Counters counters = new Counters();
    /** Frames sent, waiting for the delivery agent (real-time mode only; null in deterministic mode). */
    final MpmcRing<Frame> ingress;
    /** Frames in flight to this port, held until due (real-time mode; touched by the agent thread only). */
    final FrameHeap inFlight;
    /** Multicast LIDs joined, as offsets from 0xC000; under the fabric's lock. */
    final BitSet groups = new BitSet();
    private volatile FrameHandler handler;
    private volatile LinkListener linkListener;
    /** Runs in the delivery agent's cycle just before it takes this port's ingress; null for none. */
    private volatile Agent sender;
    /** Duty cycles that took the ingress ({@link #turns()}); written by the delivery agent only. */
    int turns;
    /** Set once by close (under the fabric's lock). */
    volatile boolean closed;

    FabricPort(Fabric fabric, Builder b, int lid, long guid, Gid gid, int index, SplittableRandom random,
            FramePool pool, boolean realTime) {
        this.fabric = fabric;
        this.lid = lid;
        this.guid = guid;
        this.gid = gid;
        this.index = index;
        this.name = b.name != null ? b.name : fabric.name() + "/port-0x" + Integer.toHexString(lid);
        this.pool = pool;
        this.handler = b.handler;
        this.linkListener = b.linkListener;
        this.link = new Link(this, b.link != null ? b.link : fabric.defaultLink(), b.faults, random);
        this.ingress = realTime ? new MpmcRing<>(b.ingressCapacity) : null;
        this.inFlight = realTime ? new FrameHeap() : null;
    }

    /** @return the fabric */
    public Fabric fabric() {
        return fabric;
    }

    /** @return the port's name, for diagnostics */
    public String name() {
        return name;
    }

    /** @return the port's unicast LID, in [0x0001, 0xBFFF] */
    public int lid() {
        return lid;
    }

    /** @return the port's GUID (the interface id of its default GID) */
    public long guid() {
        return guid;
    }

    /** @return the port's GID: by default the fabric's GID prefix (0xFE80::/64) and the GUID */
    public Gid gid() {
        return gid;
    }

    /** @return the port's link */
    public Link link() {
        return link;
    }

    /** @return the pool this port sends from */
    public FramePool pool() {
        return pool;
    }

    /** @return the port's counters */
    public Counters counters() {
        return counters;
    }

    /**
     * Takes a frame from the port's pool.
     *
     * @return the frame, or null if the pool is empty (backpressure, counted)
     */
    public Frame acquire() {
        Frame f = pool.acquire();
        if (f == null) {
            countBackpressure();
        }
        return f;
    }

    /**
     * Sends a frame to {@link Frame#dstLid()}: on success the fabric owns it (it is delivered or dropped and counted,
     * never returned to the caller). Never blocks. The first frame of a train ({@link Frame#then}) sends the train.
     *
     * @param frame an owned frame, with its bytes, length and destination set
     * @return true if the fabric took the frame; false if the port is closed or (real-time mode) its queue is full —
     *         the caller still owns the frame and may retry or release it
     * @throws IllegalStateException if the caller does not own the frame
     */
    public boolean send(Frame frame) {
        if (frame.state != Frame.OWNED) {
            throw new IllegalStateException("send: frame not owned by the caller: " + frame);
        }
        if (frame.next != null) {
            return sendTrain(frame);
        }
        if (closed) {
            return false;
        }
        frame.stampSend(lid, fabric.engine().sendTime(), this, fabric.forwarder());
        frame.state = Frame.IN_FABRIC;
        if (!fabric.engine().submit(frame)) {
            frame.state = Frame.OWNED;
            countBackpressure();
            return false;
        }
        return true;
    }

    /** {@link #send(Frame)} of a train ({@link Frame#then}): all its frames or none. */
    private boolean sendTrain(Frame first) {
        int dlid = first.dstLid();
        if (ingress == null) {
            throw new IllegalStateException("send: a train of frames needs a real-time fabric; '" + fabric.name()
                    + "' is deterministic");
        }
        if (dlid >= Fabric.MULTICAST_FIRST) {
            throw new IllegalArgumentException("send: a train goes to one unicast LID, not 0x"
                    + Integer.toHexString(dlid));
        }
        for (Frame f = first.next; f != null; f = f.next) {
            if (f.state != Frame.OWNED || f.dstLid() != dlid) {
                throw new IllegalArgumentException("send: every frame of a train must be owned and go to 0x"
                        + Integer.toHexString(dlid) + ": " + f);
            }
        }
        if (closed) {
            return false;
        }
        long sent = fabric.engine().sendTime();
        Forwarder forwarder = fabric.forwarder();
        for (Frame f = first; f != null; f = f.next) {
            f.stampSend(lid, sent, this, forwarder);
            f.state = Frame.IN_FABRIC;
        }
        if (!fabric.engine().submit(first)) {
            for (Frame f = first; f != null; f = f.next) {
                f.state = Frame.OWNED;
            }
            countBackpressure();
            return false;
        }
        return true;
    }

    /**
     * Copies {@code src}'s remaining bytes (its position does not move) into a frame from the pool and sends it.
     *
     * @param dstLid the destination LID
     * @param src the bytes
     * @return false if the pool was empty, the queue full or the port closed (nothing was sent; counted)
     */
    public boolean send(int dstLid, ByteBuffer src) {
        Frame f = acquire();
        if (f == null) {
            return false;
        }
        f.put(src).dstLid(dstLid);
        if (!send(f)) {
            f.release();
            return false;
        }
        return true;
    }

    /** @return the handler receiving this port's frames, or null (frames are then dropped, {@code NO_HANDLER}) */
    public FrameHandler handler() {
        return handler;
    }

    /**
     * @param handler receives this port's frames from now on; null drops them ({@link DropCause#NO_HANDLER})
     */
    public void handler(FrameHandler handler) {
        this.handler = handler;
        fabric.burstRulesChanged();
    }

    /**
     * Sets the sender's send engine that the fabric's delivery agent runs in each duty cycle (real time) just before
     * it takes this port's ingress: the HCA's doorbell. A simulated HCA whose posts only queue their QPs for a drain
     * (the post rings the doorbell; the engine fetches the work requests, as an HCA does over PCIe) has them made into
     * frames and delivered in the same cycle, instead of the cycle after. The agent must be safe to run on the
     * delivery thread, beside any thread that runs it too. No effect on a deterministic fabric.
     *
     * @param agent the send engine, or null for none
     */
    public void sender(Agent agent) {
        this.sender = agent;
    }

    /**
     * @return how many duty cycles of the real-time delivery agent have taken this port's ingress (a hint: written by
     *         the agent without a fence, so another thread sees it change a little late); 0 on a deterministic fabric
     */
    public int turns() {
        return turns;
    }

    /** @return the agent set by {@link #sender(Agent)}, or null */
    public Agent sender() {
        return sender;
    }

    /** @return the link listener, or null */
    public LinkListener linkListener() {
        return linkListener;
    }

    /**
     * @param listener told of link state changes from now on, or null
     */
    public void linkListener(LinkListener listener) {
        this.linkListener = listener;
    }

    /**
     * Joins a multicast group: frames sent to {@code mlid} by other ports reach this one too.
     *
     * @param mlid a multicast LID in [0xC000, 0xFFFE]
     * @throws IllegalArgumentException if not a multicast LID
     */
    public void joinMulticast(int mlid) {
        fabric.topology().join(this, mlid);
    }

    /**
     * Leaves a multicast group (no effect if not a member).
     *
     * @param mlid a multicast LID in [0xC000, 0xFFFE]
     */
    public void leaveMulticast(int mlid) {
        fabric.topology().leave(this, mlid);
    }

    /** @return true once closed */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Detaches the port: its LID becomes free, it leaves its multicast groups, frames on their way to it are dropped
     * ({@link DropCause#CLOSED}) and {@link #send(Frame)} returns false. Idempotent.
     */
    @Override
    public void close() {
        fabric.detach(this);
    }

    int index() {
        return index;
    }

    /** On the port and on the fabric, whose counters are the sums over its ports. */
    private void countBackpressure() {
        counters.incrementShared(Counters.BACKPRESSURE);
        fabric.counters().incrementShared(Counters.BACKPRESSURE);
    }

    @Override
    public String toString() {
        return "FabricPort{" + name + ", lid=0x" + Integer.toHexString(lid) + ", gid=" + gid
                + (closed ? ", closed" : "") + '}';
    }

    /**
     * Configures and attaches a port ({@link Fabric#newPort()}). Everything has a default: the next free LID, a GUID
     * made from the fabric's port count, the fabric's default link and faults, a heap pool of
     * {@link FramePool#DEFAULT_FRAMES} frames of {@link FramePool#DEFAULT_MTU} + {@link FramePool#DEFAULT_HEADROOM}
     * bytes.
     */
    public static final class Builder {
        private final Fabric fabric;
        String name;
        int lid;
        long guid;
        boolean guidSet;
        Gid gid;
        LinkModel link;
        FaultConfig faults;
        FrameHandler handler;
        LinkListener linkListener;
        FramePool pool;
        int poolFrames = FramePool.DEFAULT_FRAMES;
        int mtu = FramePool.DEFAULT_MTU;
        int headroom = FramePool.DEFAULT_HEADROOM;
        boolean direct;
        int ingressCapacity = 1024;

        Builder(Fabric fabric) {
            this.fabric = fabric;
        }

        /**
         * @param name a name for diagnostics
         * @return this builder
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * @param lid the LID to request, in [0x0001, 0xBFFF]; attaching fails if taken
         * @return this builder
         */
        public Builder lid(int lid) {
            if (lid < Fabric.UNICAST_FIRST || lid > Fabric.UNICAST_LAST) {
                throw new IllegalArgumentException("lid=0x" + Integer.toHexString(lid)
                        + " not a unicast LID in [0x1, 0xbfff]");
            }
            this.lid = lid;
            return this;
        }

        /**
         * @param guid the port GUID
         * @return this builder
         */
        public Builder guid(long guid) {
            this.guid = guid;
            this.guidSet = true;
            return this;
        }

        /**
         * @param gid the GID, instead of the fabric's prefix + GUID
         * @return this builder
         */
        public Builder gid(Gid gid) {
            this.gid = Objects.requireNonNull(gid, "gid");
            return this;
        }

        /**
         * @param link the link's timing, instead of the fabric's default
         * @return this builder
         */
        public Builder link(LinkModel link) {
            this.link = Objects.requireNonNull(link, "link");
            return this;
        }

        /**
         * @param faults the link's own faults, instead of the fabric's default
         * @return this builder
         */
        public Builder faults(FaultConfig faults) {
            this.faults = Objects.requireNonNull(faults, "faults");
            return this;
        }

        /**
         * @param handler receives the port's frames
         * @return this builder
         */
        public Builder handler(FrameHandler handler) {
            this.handler = handler;
            return this;
        }

        /**
         * @param listener told of link state changes
         * @return this builder
         */
        public Builder linkListener(LinkListener listener) {
            this.linkListener = listener;
            return this;
        }

        /**
         * @param pool a pool to send from (may be shared between ports), instead of a pool of the port's own
         * @return this builder
         */
        public Builder pool(FramePool pool) {
            this.pool = Objects.requireNonNull(pool, "pool");
            return this;
        }

        /**
         * Sizes the port's own pool.
         *
         * @param frames the number of frames
         * @param mtu the largest payload in bytes
         * @param headroom bytes for headers beyond the MTU
         * @param direct true for direct buffers
         * @return this builder
         */
        public Builder pool(int frames, int mtu, int headroom, boolean direct) {
            this.poolFrames = frames;
            this.mtu = mtu;
            this.headroom = headroom;
            this.direct = direct;
            return this;
        }

        /**
         * @param capacity the least capacity of the send queue in real-time mode (default 1024)
         * @return this builder
         */
        public Builder ingressCapacity(int capacity) {
            if (capacity < 1) {
                throw new IllegalArgumentException("ingressCapacity=" + capacity + " must be at least 1");
            }
            this.ingressCapacity = capacity;
            return this;
        }

        /**
         * Attaches the port to the fabric.
         *
         * @return the port, link up
         * @throws IllegalArgumentException if the LID is taken or the pool's frames exceed the fabric's
         *         {@code maxFrameSize}
         * @throws IllegalStateException if the fabric is closed or has no free LID
         */
        public FabricPort attach() {
            FramePool p = pool;
            if (p == null) {
                p = direct ? FramePool.direct(poolFrames, mtu, headroom) : FramePool.heap(poolFrames, mtu, headroom);
            }
            return fabric.attach(this, p);
        }
    }
}
