package io.rvt.driver.sim;

import io.rvt.api.AhAttr;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.PortCounter;
import io.rvt.api.PortState;
import io.rvt.api.QpState;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.DriverAh;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.OperationTable;
import io.rvt.api.spi.TimerService;
import io.rvt.api.spi.agent.Agent;
import io.rvt.api.spi.agent.AgentRunner;
import io.rvt.api.spi.agent.BackoffIdleStrategy;
import io.rvt.api.spi.agent.BusySpinIdleStrategy;
import io.rvt.api.spi.agent.IdleStrategy;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.sim.fabric.ChecksumWriter;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricMode;
import io.rvt.driver.sim.fabric.FabricPort;
import io.rvt.driver.sim.fabric.FaultConfig;
import io.rvt.driver.sim.fabric.Frame;
import io.rvt.driver.sim.fabric.FrameHandler;
import io.rvt.driver.sim.fabric.LinkModel;
import io.rvt.transport.Delivery;
import io.rvt.transport.PacketDriver;
import io.rvt.transport.QpSendEngine;
import io.rvt.transport.RxInfo;
import io.rvt.transport.ThreadScratch;
import io.rvt.transport.Transport;
import io.rvt.transport.TxInfo;
import io.rvt.transport.header.Framing;
import io.rvt.transport.header.GrhDescriptor;
import io.rvt.transport.header.Icrc;
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
public final class SimDriver extends PacketDriver<SimQp, SimScratch> {
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
    private final SimSendAgent sendAgent;
    private final IdleStrategy idleStrategy;
    private final boolean ownThread;
    /** The send engine runs in the fabric's duty cycle ({@link ThreadingMode#PROGRESS}). */
    private final boolean joinsFabric;
    /**
     * A QP's second and later posts between two cycles only ring the doorbell (queue the QP for its send engine),
     * which the fabric's delivery agent runs just before it takes port 1's ingress ({@link FabricPort#sender}): a
     * real-time fabric run by the pollers' progress hook or the caller ({@link ThreadingMode#PROGRESS},
     * {@link ThreadingMode#INVOKER}).
     */
    private final boolean doorbell;
    private volatile AgentRunner sendRunner;
    /** Parses frames that were not sealed (or when every ICRC is checked): checks the ICRC. */
    private final PacketParser parser = new PacketParser(true);
    /** Parses sealed frames: the ICRC their sender computed still holds, so it is not recomputed. */
    private final PacketParser sealedParser;
    /** Writes the ICRC of a frame this HCA sent, when the fabric needs its bytes ({@link Frame#sealDeferred}). */
    private final ChecksumWriter icrcWriter = f -> this.txScratch.get().icrc.writeIb(f.buffer(), 0, f.length());
    /** Receive-path scratch, touched only by the fabric's delivery thread. */
    private final PacketHeaders rxHeaders = new PacketHeaders();
    private final RxInfo rxInfo = new RxInfo();
    /**
     * Each sending thread's scratch, kept by the driver, not by the threads: an application thread that posted keeps
     * neither this driver's scratch nor driver-sim's class loader once the HCA is gone.
     */
    private final ThreadScratch<SimScratch> txScratch = new ThreadScratch<>(SimScratch::new);
    private volatile DriverDevice device;

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
        this.idleStrategy = b.idleStrategy;
        this.sealedParser = b.checkEveryIcrc ? parser : new PacketParser(false);
        ThreadingMode threading = b.threading != null ? b.threading
                : fabric.threading() == ThreadingMode.PROGRESS ? ThreadingMode.PROGRESS : ThreadingMode.DEDICATED;
        if (threading == ThreadingMode.PROGRESS && fabric.threading() != ThreadingMode.PROGRESS) {
            throw new IllegalArgumentException("HCA '" + b.name + "': ThreadingMode.PROGRESS runs the send engine in "
                    + "the fabric's duty cycle, but fabric '" + fabric.name() + "' is " + fabric.threading());
        }
        this.ownThread = threading == ThreadingMode.DEDICATED;
        this.joinsFabric = threading == ThreadingMode.PROGRESS && !deterministic;
        this.doorbell = !deterministic && !ownThread && fabric.threading() != ThreadingMode.DEDICATED;
        this.sendAgent = deterministic ? null : new SimSendAgent(this, b.maxQp, "rvt-sim-" + name + "-send");
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
        return sendAgent;
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

    @Override
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
        if (sendAgent != null && joinsFabric) {
            fabric.addEngine(sendAgent);
        }
        if (doorbell) {
            ports[0].sender(sendAgent);
        }
        if (sendAgent != null && ownThread) {
            sendRunner = AgentRunner.start(sendAgent, idleStrategy, e -> System.getLogger(SimDriver.class.getName())
                    .log(System.Logger.Level.WARNING, "send engine of " + name + " failed", e));
        }
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
        if (doorbell) {
            ports[0].sender(null);
        }
        for (FabricPort p : ports) {
            p.close();
        }
        AgentRunner r = sendRunner;
        if (r != null) {
            r.close();
        }
        if (sendAgent != null && joinsFabric) {
            fabric.removeEngine(sendAgent);
        }
        txScratch.release(); // a later flush without a frame makes its scratch again
    }

    // ------------------------------------------------------------------ QP lifecycle

    @Override
    protected QpSendEngine newSendEngine(DriverQp qp) {
        return new SimQp(qp, this);
    }

    /** Mirrors {@code qp_priv_free}: stops the QP's engine, waits out a drain on another thread, frees its spare frame. */
    @Override
    public void qpPrivFree(DriverDevice rdi, DriverQp qp) {
        super.qpPrivFree(rdi, qp);
        SimQp s = QpSendEngine.of(qp);
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
        SimQp s = QpSendEngine.of(qp);
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
        if (deterministic) {
            fabric.executor().execute(s.drainTask);
        } else {
            sendAgent.put(s); // each QP is queued at most once, so the queue (one slot per QP) always has room
        }
    }

    /**
     * With the {@link #doorbell}, the first post of a QP between two cycles of the fabric drains here, and the later
     * ones queue the QP: the next cycle drains them all at once, just before it takes their port's frames (nothing
     * moves sooner on such a fabric), where a ping-pong's one post per turn still leaves at once.
     */
    @Override
    protected boolean drainsHere(SimQp s) {
        if (!doorbell) {
            return true;
        }
        int portNum = s.qp.portNum();
        int turn = ports[(portNum >= 1 && portNum <= nports ? portNum : 1) - 1].turns();
        if (s.postTurn == turn) {
            return false; // drained here once since the fabric last took the port's frames: join the next cycle
        }
        s.postTurn = turn; // a hint: two posting threads at once only make both drain here or both queue
        return true;
    }

    @Override
    protected SimScratch sendScratch() {
        return txScratch.get();
    }

    /** @return how many threads hold a send scratch of this HCA now (for tests) */
    int scratchThreads() {
        return txScratch.threads();
    }

    /** A drain deferred by the delivery thread: queued in deterministic mode, to keep the event loop's order. */
    @Override
    protected boolean schedulesDeferred() {
        return deterministic;
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
        int n = transport().makePacket(qp, buf, HEADROOM, tx);
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
                device.port(portNum).addCounter(PortCounter.PKT_DROPS, packets);
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
            device.port(portNum).addCounter(PortCounter.PKT_DROPS, packets);
            return 1;
        }
        countSent(s, portNum, packets, wire);
        return 1;
    }

    /** The drain's frames go to the fabric as one train ({@link SimTrain}) before another thread may drain the QP. */
    @Override
    protected void packetsOut(SimQp s, SimScratch sc) {
        if (!sc.train.isEmpty()) {
            sendTrain(sc.train);
        }
    }

    private void sendTrain(SimTrain t) {
        if (t.send()) {
            countSent(t.qp(), t.portNum(), t.packets(), t.wire());
        } else { // the port's queue is full or the port closed: lost on the way (RC resends them)
            device.port(t.portNum()).addCounter(PortCounter.PKT_DROPS, t.packets());
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
        if (transport().makePacket(qp, sc.flushBuffer, HEADROOM, sc.tx) > 0) {
            device.port(portNum).addCounter(PortCounter.PKT_DROPS, 1); // not expected in ERR: lost, never sent
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
