package io.rvt.driver.sim;

import io.rvt.api.AhAttr;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.PortState;
import io.rvt.api.VerbsException;
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
import io.rvt.api.spi.agent.Agent;
import io.rvt.api.spi.agent.BackoffIdleStrategy;
import io.rvt.api.spi.agent.BusySpinIdleStrategy;
import io.rvt.api.spi.agent.IdleStrategy;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricMode;
import io.rvt.driver.sim.fabric.FabricPort;
import io.rvt.driver.sim.fabric.FaultConfig;
import io.rvt.driver.sim.fabric.Frame;
import io.rvt.driver.sim.fabric.FrameHandler;
import io.rvt.driver.sim.fabric.LinkModel;
import io.rvt.transport.Delivery;
import io.rvt.transport.LockPolicy;
import io.rvt.transport.PacketDriver;
import io.rvt.transport.QpSendEngine;
import io.rvt.transport.engine.RxInfo;
import io.rvt.transport.ThreadScratch;
import io.rvt.transport.Transport;
import io.rvt.transport.header.Framing;
import io.rvt.transport.header.GrhDescriptor;
import io.rvt.transport.header.LrhDescriptor;
import io.rvt.transport.header.PacketHeaders;
import io.rvt.transport.header.PacketParser;
import io.rvt.transport.header.RejectReason;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;

/**
 * A simulated HCA: an rvt driver ({@code struct rvt_driver_provided}) whose ports are attached to an in-JVM
 * {@link Fabric}. It frames packets the IBTA way (LRH, GRH, BTH and the transport's extension headers, payload,
 * ICRC), runs {@link Transport}'s RC/UC/UD engines, and takes the fabric's time: in a deterministic fabric the RC
 * timers and completion handlers run on the fabric's virtual clock and event loop, so a seeded program replays
 * exactly.
 *
 * <pre>{@code
 * Fabric lab = Fabric.builder("lab").deterministic(42)
 *         .faults(FaultConfig.builder().loss(0.01).build()).build();
 * SimDriver a = SimDriver.builder(lab).name("a").build();   // register with rvt-core, e.g. RvtDevice.register(a)
 * }</pre>
 *
 * <p>Threads: the send engine of a QP runs on the poster's thread ({@code do_send}) or, when scheduled from a path
 * that holds QP locks, on the fabric's executor (deterministic) or the driver's duty-cycle send agent (real time); a
 * per-QP counter makes sure only one thread drains a QP at a time. Received frames are handled on the fabric's delivery
 * thread (or event loop). On a fabric with {@link ThreadingMode#PROGRESS} (the real-time default) the send agent is
 * part of the fabric's duty cycle, which the application's polls run through the progress hook
 * ({@link #progress(int)}) and the fabric's backstop thread runs when they do not.
 */
public final class SimDriver extends PacketDriver<SimQp, SimScratch> implements PortQuery, PortModify, GidLookup {
    /** Bytes before the BTH: LRH (8) and GRH (40); every packet is sent with a GRH. */
    static final int HEADROOM = LrhDescriptor.LENGTH + GrhDescriptor.LENGTH;

    private final Fabric fabric;
    private final String name;
    private final int nports;
    private final PathMtu mtu;
    private final long nodeGuid;
    private final DriverParams params;
    private final FabricPort[] ports;
    /** Per port: the send engines that found its pool empty, woken when a frame comes back. */
    private final FrameWait[] frameWaits;
    private final boolean deterministic;
    /** Who runs the send engine; the doorbell. */
    private final SimSendThreads sends;
    /** Parses frames that were not sealed (or when every ICRC is checked): checks the ICRC. */
    private final PacketParser parser = new PacketParser(true);
    /** Parses sealed frames: the ICRC their sender computed still holds, so it is not recomputed. */
    private final PacketParser sealedParser;
    /** Receive-path scratch, touched only by the fabric's delivery thread. */
    private final PacketHeaders rxHeaders = new PacketHeaders();
    private final RxInfo rxInfo = new RxInfo();
    /**
     * Each sending thread's scratch, kept by the driver, not by the threads: an application thread that posted keeps
     * neither this driver's scratch nor driver-sim's class loader once the HCA is gone.
     */
    private final ThreadScratch<SimScratch> txScratch = new ThreadScratch<>(SimScratch::new);
    private volatile DriverDevice device;
    /** Puts the transport's packets into frames and hands them to the ports. */
    private final SimTransmitter transmitter;

    /** System property naming the fabric a {@link #SimDriver() ServiceLoader-made} HCA joins. */
    public static final String FABRIC_PROP_NAME = "rvt.sim.fabric";
    /** The fabric a ServiceLoader-made HCA joins unless {@value #FABRIC_PROP_NAME} says otherwise. */
    public static final String FABRIC_DEFAULT = "rvt";
    /** The name of an HCA that is given none: rvt-core names its device sim0, sim1, ... (lowest free index). */
    public static final String DEFAULT_NAME = "sim%d";

    /**
     * The HCA {@link java.util.ServiceLoader} makes (module path: {@code provides}; class path:
     * {@code META-INF/services}): one port, MTU 4096, named {@code sim0}, {@code sim1}, ... (the pattern
     * {@code sim%d}: the lowest free index), on the real-time fabric named by
     * {@value #FABRIC_PROP_NAME} (default {@value #FABRIC_DEFAULT}), created on first use. Use {@link #builder} for
     * anything else.
     */
    public SimDriver() {
        this(builder(Fabric.named(System.getProperty(FABRIC_PROP_NAME, FABRIC_DEFAULT)))
                .name(DEFAULT_NAME));
    }

    private SimDriver(Builder b) {
        super(SimQp.class);
        this.fabric = b.fabric;
        this.name = b.name;
        this.nports = b.ports;
        this.mtu = b.mtu;
        this.deterministic = fabric.mode() == FabricMode.DETERMINISTIC;
        this.ports = new FabricPort[nports];
        this.frameWaits = new FrameWait[nports];
        synchronized (NodeGuids.LOCK) {
            this.nodeGuid = b.nodeGuid != 0 ? b.nodeGuid : NodeGuids.free(fabric, name, nports);
            this.params = packetHcaParams(nodeGuid, 0x51D, b.maxQp, nports);
            attachPorts(b);
        }
        this.sealedParser = b.checkEveryIcrc ? parser : new PacketParser(false);
        this.sends = new SimSendThreads(this, b.threading, b.idleStrategy, b.maxQp, ports);
        this.transmitter = new SimTransmitter(this, fabric, ports);
    }

    /** Attaches the ports to the fabric, port n with GUID {@link #nodeGuid} + n. */
    private void attachPorts(Builder b) {
        for (int i = 0; i < nports; i++) {
            int portNum = i + 1;
            FabricPort.Builder pb = fabric.newPort().guid(nodeGuid + portNum).handler(new PortReceiver(portNum));
            if (!name.contains("%")) {
                // a pattern's device name is known only at registration: the fabric then names the port by its LID
                pb.name(name + ":" + portNum);
            }
            if (b.link != null) {
                pb.link(b.link);
            }
            if (b.faults != null) {
                pb.faults(b.faults);
            }
            ports[i] = pb.attach();
            frameWaits[i] = new FrameWait(this, ports[i]);
            ports[i].pool().refillListener(frameWaits[i]);
        }
    }

    /**
     * @param fabric the fabric the HCA's ports attach to
     * @return a builder
     */
    public static Builder builder(Fabric fabric) {
        return new Builder(fabric);
    }

    /** @return the fabric */
    public Fabric fabric() {
        return fabric;
    }

    /**
     * @param portNum a port, 1-based
     * @return its fabric port
     */
    public FabricPort fabricPort(int portNum) {
        return ports[portNum - 1];
    }

    /**
     * The real-time send engine, for a caller that runs it itself ({@link ThreadingMode#INVOKER}), e.g. with the
     * fabric's agent in one {@link io.rvt.api.spi.agent.CompositeAgent}.
     *
     * @return the agent, or null in a deterministic fabric (there the fabric's event loop runs the engine)
     */
    public Agent sendAgent() {
        return sends.agent();
    }

    /** @return the device once registered, else null */
    public DriverDevice device() {
        return device;
    }

    // ------------------------------------------------------------------ identity

    @Override
    public String name() {
        return name;
    }

    @Override
    public DriverParams params() {
        return params;
    }

    @Override
    public OperationTable postParms() {
        return OperationTable.standard();
    }

    /**
     * @return {@code sim:<fabric>:<name>}, the device for logs: what rdmavt's {@code get_pci_dev} gave, no
     *         longer a callback
     */
    public String getPciDev() {
        return "sim:" + fabric.name() + ":" + name;
    }

    @Override
    public TimerService timerService() {
        return deterministic ? fabric.timerService() : null;
    }

    @Override
    public Executor completionExecutor(int cpu) {
        return deterministic ? fabric.executor() : null;
    }

    /**
     * On a real-time fabric an empty poll's progress hook stops after the first duty cycle that did work: the poller's
     * completion is then most likely there, and what follows (the ACK of what was just delivered) goes with the next
     * poll's frames in one cycle instead of a cycle of its own plus an empty one. SimBenchmark.pingPong8 with the hook
     * went from 12-15 % above the invoker (one cycle per empty poll) to 5-6 %; sendStream and rdmaWriteBw stayed
     * within 5 % of it. Waits keep their budget
     * ({@link #progressWhileWaiting()}); a deterministic fabric keeps {@link Fabric#DETERMINISTIC_POLL_BUDGET}.
     */
    static final int REAL_TIME_POLL_BUDGET = 1;

    /**
     * rvt extension, the progress hook: with {@link ThreadingMode#PROGRESS} runs the fabric and the send engines of
     * its HCAs on the calling thread ({@link Fabric#progress(int)}), if no other thread is running them; on a
     * real-time fabric with a budget of at most {@link #REAL_TIME_POLL_BUDGET}, so it returns after its first duty
     * cycle that did work.
     */
    @Override
    public int progress(int budget) {
        return fabric.progress(deterministic ? budget : Math.min(budget, REAL_TIME_POLL_BUDGET));
    }

    /**
     * The progress hook; and in a deterministic fabric driven by its caller ({@link ThreadingMode#INVOKER}), one event
     * of its loop, so a verb that waits for the HCA's work (rvt-core's {@code deregMr} waiting for in-flight work to
     * let go of a region) gets it done on the waiting thread, as the send engine's thread does in real time. Nothing
     * when the loop is driven by a thread of its own or further up the caller's stack (the verb was called from a
     * completion handler).
     */
    @Override
    public boolean progressWhileWaiting() {
        if (deterministic && fabric.threading() == ThreadingMode.INVOKER) {
            return fabric.loop().tryStep();
        }
        return fabric.progress(WAIT_BUDGET) > 0;
    }

    @Override
    public void registered(DriverDevice dev) {
        attach(dev);
        this.device = dev;
        sends.start();
        for (int i = 0; i < nports; i++) {
            DriverPort p = dev.port(i + 1);
            p.lid(ports[i].lid());
            p.gidPrefix(ports[i].gid().subnetPrefix());
        }
    }

    @Override
    public void unregistering(DriverDevice dev) {
        close();
    }

    /**
     * Detaches the HCA's ports from the fabric and stops its send thread, if it has one. rvt-core's unregistering does
     * this; call it for a driver that was never registered (refused) or whose owner goes away. Idempotent.
     */
    public void close() {
        sends.unhookDoorbell();
        for (FabricPort p : ports) {
            p.close();
        }
        sends.stop();
        txScratch.release(); // a later flush without a frame makes its scratch again
    }

    // ------------------------------------------------------------------ QP lifecycle

    /** Mirrors {@code qp_priv_alloc}'s driver part: the QP's {@link SimQp}, read back with {@code engine(qp)}. */
    @Override
    protected QpSendEngine newSendEngine(DriverQp qp) {
        return new SimQp(qp, this);
    }

    /** Mirrors {@code qp_priv_free}: stops the QP's engine, waits out a drain on another thread, frees its spare frame. */
    @Override
    public void qpPrivFree(DriverDevice rdi, DriverQp qp) {
        super.qpPrivFree(rdi, qp);
        SimQp s = engine(qp);
        if (s != null) {
            s.awaitIdle();
            Frame spare = s.spare;
            s.spare = null;
            if (spare != null) {
                spare.release();
            }
        }
    }

    @Override
    protected PathMtu portMtu() {
        return mtu;
    }

    /** Mirrors {@code flush_qp_waiters}: a QP reset while it waits for a frame leaves the wait and drains now. */
    @Override
    public void flushQpWaiters(DriverQp qp) {
        stopWaiting(qp);
    }

    /**
     * Mirrors {@code notify_error_qp} (as hfi1 takes the QP off its I/O wait list): a QP that waits for a frame
     * stops waiting and is drained now, so its send queue is flushed at once and the flush lets go of the regions it
     * references ({@code deregMr} waits for that), instead of only when a frame comes back.
     */
    @Override
    public void notifyErrorQp(DriverQp qp) {
        super.notifyErrorQp(qp);
        stopWaiting(qp);
    }

    /** QP locks held: takes {@code qp} off its port's frame wait and queues its drain (it keeps its pending count). */
    private void stopWaiting(DriverQp qp) {
        SimQp s = engine(qp);
        if (s != null && frameWaits[s.waitPort - 1].remove(s)) {
            schedule(s);
        }
    }

    @Override
    public void quiesceQp(DriverQp qp) {
        // Frames handed to the fabric are owned by it: nothing in flight belongs to the QP.
    }

    // ------------------------------------------------------------------ ports

    @Override
    public long getGuidBe(DriverDevice rdi, DriverPort port, int guidIndex) {
        if (guidIndex != 0) {
            throw new VerbsException(Errno.EINVAL, "gid index " + guidIndex + " does not exist on " + name
                    + " (its GID table has 1 entry)");
        }
        return ports[port.portNum() - 1].gid().interfaceId();
    }

    @Override
    public int queryPortState(DriverDevice rdi, int portNum, PortAttr props) {
        FabricPort p = ports[portNum - 1];
        boolean up = !p.isClosed() && p.link().isUp();
        props.state(up ? PortState.ACTIVE : PortState.DOWN).physState(up ? 5 : 3).maxMtu(mtu).activeMtu(mtu)
                .lid(p.lid()).gidTblLen(1).maxVlNum(1).activeWidth(2).activeSpeed(1);
        return 0;
    }

    @Override
    public int shutDownPort(DriverDevice rdi, int portNum) {
        ports[portNum - 1].link().down();
        return 0;
    }

    @Override
    public void notifyMcastAttach(DriverDevice rdi, DriverPort port, Gid mgid, int mlid) {
        ports[port.portNum() - 1].joinMulticast(mlid);
    }

    @Override
    public void notifyMcastDetach(DriverDevice rdi, DriverPort port, Gid mgid, int mlid) {
        ports[port.portNum() - 1].leaveMulticast(mlid);
    }

    @Override
    public void notifyNewAh(DriverDevice rdi, AhAttr attr, DriverAh ah) {
        // UD messages may be one path MTU long: the port's MTU, as hfi1/qib derive it from the SL's VL.
        ah.vl(0);
        ah.logPmtu(31 - Integer.numberOfLeadingZeros(mtu.bytes()));
    }

    @Override
    public void capMaskChg(DriverDevice rdi, int portNum) {
        // No subnet manager to trap to.
    }

    // ------------------------------------------------------------------ send engine (the wire side of PacketDriver)

    /** QP locks may be held: the fabric's executor (deterministic) or the send agent (real time) drains the QP. */
    @Override
    protected void schedule(SimQp s) {
        sends.schedule(s);
    }

    /** With the doorbell, a QP's first post between two cycles of the fabric drains here ({@link SimSendThreads}). */
    @Override
    protected boolean drainsHere(SimQp s) {
        return sends.drainsHere(s);
    }

    @Override
    protected SimScratch sendScratch() {
        return txScratch.get();
    }

    /** @return how many threads hold a send scratch of this HCA now (for tests) */
    int scratchThreads() {
        return txScratch.threads();
    }

    /**
     * On a real-time fabric a run of a delivery batch's packets to one RC QP takes its {@code recvLock} once, and a
     * drain holds its QP's {@code sendLock} over its packets: between two packets of a batch the delivery thread only
     * parses, counts and returns frames to their pool (whose refill notice schedules waiting QPs, an order that
     * {@code notifyErrorQp} already takes under QP locks), a batch is at most what came due in one duty cycle, and
     * {@link SimTransmitter} fills frames, queues them on a lock-free ring and returns refused ones to their pool,
     * waiting for a frame only after the drain has let go ({@link #waitForWire}). A deterministic fabric delivers
     * each frame as a batch of its own, keeps one hold per packet, and queues the drains the delivery thread
     * deferred, to keep the event loop's order.
     */
    @Override
    protected LockPolicy lockPolicy() {
        return deterministic ? LockPolicy.PER_PACKET.withSchedulesDeferred(true)
                : LockPolicy.PER_PACKET.withSendLockOverDrains(true).withRecvLockOverRuns(true);
    }

    /**
     * @return {@link #lockPolicy()}'s; kept while io.rvt.driver.sim is 1.x (removing it is a major change there)
     * @deprecated {@link #lockPolicy()}
     */
    @Deprecated
    @Override
    protected boolean holdsRecvLockOverRuns() {
        return lockPolicy().recvLockOverRuns();
    }

    /**
     * @return {@link #lockPolicy()}'s; kept while io.rvt.driver.sim is 1.x
     * @deprecated {@link #lockPolicy()}
     */
    @Deprecated
    @Override
    protected boolean holdsSendLockOverDrains() {
        return lockPolicy().sendLockOverDrains();
    }

    /**
     * @return {@link #lockPolicy()}'s; kept while io.rvt.driver.sim is 1.x
     * @deprecated {@link #lockPolicy()}
     */
    @Deprecated
    @Override
    protected boolean schedulesDeferred() {
        return lockPolicy().schedulesDeferred();
    }

    /**
     * No frame: the engine stays pending and waits for one to come back. Re-queueing the drain right away would spin
     * at one virtual instant in deterministic mode, before the deliveries that return frames could run.
     */
    @Override
    protected void waitForWire(SimQp s) {
        frameWaits[s.waitPort - 1].park(s);
    }

    /** Runs the QP's send engine on the calling thread (the send agent, the executor). */
    void drain(SimQp s) {
        drain(s, txScratch.get());
    }

    /** @return 1 if a packet was sent, 0 if there was nothing to send, -1 if no frame was free */
    @Override
    protected int sendPacket(SimQp s, SimScratch sc) {
        return transmitter.sendPacket(s, sc);
    }

    /** The drain's frames go to the fabric as one train ({@link SimTrain}) before another thread may drain the QP. */
    @Override
    protected void packetsOut(SimQp s, SimScratch sc) {
        transmitter.packetsOut(sc);
    }

    /** For {@link SimTransmitter}: the transport that makes the packets. */
    Transport wireTransport() {
        return transport();
    }

    /** For {@link SimTransmitter}: counts packets a port took as the QP's sent ones. */
    void countSentPackets(SimQp s, int portNum, int packets, int wire) {
        countSent(s, portNum, packets, wire);
    }

    // ------------------------------------------------------------------ receive path

    /** Delivery of a frame to port {@code d}: parse, check the ICRC, then the transport (by {@link #receive}). */
    private void onFrame(Delivery d, Frame frame) {
        DriverDevice dev = device;
        try {
            if (dev == null) {
                return;
            }
            ByteBuffer buf = frame.buffer();
            PacketHeaders h = rxHeaders;
            PacketParser p = frame.isSealed() ? sealedParser : parser;
            if (p.parse(buf, 0, frame.length(), Framing.IB_LRH, h) != RejectReason.OK) {
                dropMalformed(dev.port(d.portNum()));
                return;
            }
            h.payloadSlices(frame.payload()); // an RC request's payload, still in the sender's region
            int packets = frame.packets();
            if (packets > 1 && !SimBursts.takeRun(h, packets, frame.burstInfo())) {
                for (int i = 0; i < packets; i++) {
                    dropMalformed(dev.port(d.portNum()));
                }
                return;
            }
            RxInfo rx = rxInfo.fromHeaders(d.portNum(), buf, h);
            if (h.dlid() >= Fabric.MULTICAST_FIRST && h.dlid() <= Fabric.MULTICAST_LAST) {
                receiveMulticast(d, h.dgid(), h.dlid(), buf, h, rx);
            } else {
                receive(d, buf, h, rx);
            }
        } finally {
            frame.release();
            if (d.isFull()) {
                drainDeferred(d, txScratch.get()); // cannot wait for the end of the batch
            }
        }
    }

    /** A port's receive path: frames one by one, then, at the end of each delivery batch, the deferred sends. */
    private final class PortReceiver implements FrameHandler {
        private final Delivery delivery;

        PortReceiver(int portNum) {
            this.delivery = newDelivery(portNum);
        }

        @Override
        public void onFrame(Frame frame) {
            delivery.received(frame.packets(), frame.wireLength());
            SimDriver.this.onFrame(delivery, frame);
        }

        @Override
        public boolean acceptsDeferredBytes() {
            return sealedParser != parser; // it trusts sealed frames and reads referenced payloads from their slices
        }

        @Override
        public boolean acceptsBursts() {
            return acceptsDeferredBytes(); // a burst's packets after the first are checked by no ICRC
        }

        @Override
        public void onBatchEnd() {
            // RX counters, then the ACKs coalesced over the batch (one per QP), responses, resumed requesters.
            endBatch(delivery, txScratch.get());
        }
    }

    @Override
    public String toString() {
        return "SimDriver{" + name + " on fabric " + fabric.name() + ", ports=" + nports + ", mtu=" + mtu.bytes()
                + '}';
    }

    /** Configures a {@link SimDriver}. */
    public static final class Builder {
        private final Fabric fabric;
        private String name = DEFAULT_NAME;
        private int ports = 1;
        private PathMtu mtu = PathMtu.MTU_4096;
        private long nodeGuid;
        private int maxQp = 16384;
        private IdleStrategy idleStrategy = new BackoffIdleStrategy();
        private ThreadingMode threading;
        private LinkModel link;
        private FaultConfig faults;
        private boolean checkEveryIcrc;

        private Builder(Fabric fabric) {
            if (fabric == null) {
                throw new IllegalArgumentException("fabric must not be null");
            }
            this.fabric = fabric;
        }

        /**
         * @param v the device name, or a pattern with one {@code %d} that rvt-core fills with the lowest free index
         *          (default {@value SimDriver#DEFAULT_NAME})
         * @return this
         */
        public Builder name(String v) {
            if (v == null || v.isBlank()) {
                throw new IllegalArgumentException("name must be a non-empty string, got '" + v + "'");
            }
            name = v;
            return this;
        }

        /**
         * @param v number of ports, 1..16
         * @return this
         */
        public Builder ports(int v) {
            if (v < 1 || v > 16) {
                throw new IllegalArgumentException("ports must be in 1..16, got " + v);
            }
            ports = v;
            return this;
        }

        /**
         * @param v the ports' MTU
         * @return this
         */
        public Builder mtu(PathMtu v) {
            if (v == null) {
                throw new IllegalArgumentException("mtu must not be null");
            }
            mtu = v;
            return this;
        }

        /**
         * @param v the node GUID (0, the default: derived from the fabric's seed and the HCA's name, the same in every
         *          run, unique on the fabric; port n's GUID is the node GUID + n)
         * @return this
         */
        public Builder nodeGuid(long v) {
            nodeGuid = v;
            return this;
        }

        /**
         * @param v most QPs (and CQs)
         * @return this
         */
        public Builder maxQp(int v) {
            if (v < 1) {
                throw new IllegalArgumentException("maxQp must be at least 1, got " + v);
            }
            maxQp = v;
            return this;
        }

        /**
         * @param v what the real-time send engine's thread does when idle: {@link BusySpinIdleStrategy} for the lowest
         *          latency (it takes a core), {@link BackoffIdleStrategy} (the default) to spin, yield, then park
         * @return this
         */
        public Builder idleStrategy(IdleStrategy v) {
            if (v == null) {
                throw new IllegalArgumentException("idleStrategy must not be null");
            }
            idleStrategy = v;
            return this;
        }

        /**
         * @param v who runs the real-time send engine: {@link ThreadingMode#PROGRESS} (the default on a PROGRESS
         *          fabric), the fabric's duty cycle, run by the pollers' progress hook and the fabric's backstop;
         *          {@link ThreadingMode#DEDICATED} (the default otherwise), a thread of the driver's own;
         *          {@link ThreadingMode#INVOKER}, the caller through {@link SimDriver#sendAgent()}
         * @return this
         */
        public Builder threading(ThreadingMode v) {
            if (v == null) {
                throw new IllegalArgumentException("threading must not be null");
            }
            threading = v;
            return this;
        }

        /**
         * @param v the timing of every port's link to the fabric's switch, instead of the fabric's default
         * @return this
         */
        public Builder link(LinkModel v) {
            if (v == null) {
                throw new IllegalArgumentException("link must not be null");
            }
            link = v;
            return this;
        }

        /**
         * @param v the faults of every port's link (loss, duplication, reordering, corruption), instead of the
         *          fabric's default
         * @return this
         */
        public Builder faults(FaultConfig v) {
            if (v == null) {
                throw new IllegalArgumentException("faults must not be null");
            }
            faults = v;
            return this;
        }

        /**
         * @param v true to check the ICRC of every frame received; false (the default) to check it on every frame but
         *          those the sending HCA {@link Frame#seal() sealed} and the fabric left unchanged (bytes flipped by the
         *          corruption fault are always caught)
         * @return this
         */
        public Builder checkEveryIcrc(boolean v) {
            checkEveryIcrc = v;
            return this;
        }

        /** @return the driver, its ports attached to the fabric; register it to get a device */
        public SimDriver build() {
            if (mtu.bytes() + HEADROOM + 64 > fabric.maxFrameSize()) {
                throw new IllegalArgumentException("mtu " + mtu.bytes() + " does not fit the fabric's frame size "
                        + fabric.maxFrameSize());
            }
            return new SimDriver(this);
        }
    }
}
