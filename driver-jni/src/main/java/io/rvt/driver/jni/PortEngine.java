package io.rvt.driver.jni;

import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.PortCounter;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.agent.Agent;
import io.rvt.api.spi.agent.IdleStrategy;
import io.rvt.api.spi.agent.ProgressEngine;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.transport.Delivery;
import io.rvt.transport.QpSendEngine;
import java.net.Inet6Address;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * One port of a {@link JniDriver}: its socket, and the engine that serves it, an {@link Agent} whose duty cycle
 * ({@link #cycle()}) is both the port's receive engine (a {@code recvmmsg} batch, each datagram parsed, checked and
 * handed to the transport) and its send engine for QPs scheduled from paths that hold QP locks (ACKs, responses,
 * retries, RNR restarts), so that the ACKs a batch of requests causes leave in one {@code sendmmsg} batch.
 *
 * <p>Who runs it is the driver's {@link ThreadingMode}, through a {@link ProgressEngine}: with PROGRESS the thread
 * that polls a CQ of the device runs it (the progress hook: it receives and sends on its own thread while it holds the
 * engine) and the port's thread is the backstop; with DEDICATED only the port's thread; with INVOKER only
 * {@link JniDriver#doWork()}. The port's thread, idle, spins, then (unless busy-polling) waits in {@code poll} on the
 * socket and an eventfd that {@link #schedule} signals.
 *
 * <p>With PROGRESS the backstop also stands in for a caller stalled inside the engine: a polling thread spends most
 * of its time in the duty cycle, and a busy machine takes it off its core there for up to half a second (measured,
 * docs/driver-jni.md), during which the port would neither receive, nor ACK, nor retransmit. When a caller has begun
 * no cycle for the backstop's quiet period while holding the engine, the backstop runs the same cycle with a lane of
 * its own ({@link EngineLane}: a second receive batch, parse scratch, {@link Delivery} and send batch) on the same
 * socket, sending each QP's packets as it drains it, until the caller moves on. Both take datagrams from one socket
 * and QPs from one queue; the transport serialises per QP (its locks, the drain's pending counter). The stalled
 * caller's batch may hold datagrams received before the stand-in's and packets drained before them: those are then
 * handled after later ones, as a network may reorder (RC recovers as from loss: a sequence NAK or a duplicate).
 */
final class PortEngine implements Agent {
    /**
     * Empty cycles (each a non-blocking {@code recvmmsg}, about a microsecond) before waiting in {@code poll}. No
     * {@code Thread.yield} phase: on a busy machine a yield gives the core away for a whole time slice, while a thread
     * waiting in {@code poll} is woken by the packet itself. Few: a port thread that spins after its work keeps the
     * core from the application thread that must see the completion and answer it (with {@code --threading
     * network} two processes on two cores ran four busy threads); 100 spins made a two-process ping-pong 508-560
     * µs/iter, 10 made it 89-110 (load 31-45), the message rate unchanged within noise.
     */
    static final int SPINS = 10;
    private static final int WAIT_MILLIS = 10;
    /** The longest a poller waits in {@code poll} at a time ({@link JniDriverBuilder#pollerWaitNanos}). */
    static final int POLLER_WAIT_MILLIS = 1;
    /** The running PROGRESS ports of the JVM (this class loader): a poller waits only on the only one. */
    private static final AtomicInteger PROGRESS_PORTS = new AtomicInteger();

    /** The driver's name, for threads, logs and errors. */
    private final String driverName;
    final int portNum;
    /** The device's view of this port (its counters), set at registration; null before. */
    private volatile DriverPort driverPort;
    /** The driver's sockets (flow source sockets are opened there, closed with the driver). */
    private final Sockets sockets;
    /** The wire's two halves: this port's packets are framed, sent and received through them. */
    private final RoceSender roce;
    private final RoceReceiver receiver;
    /** A receive path in the driver's packet skeleton bound to a lane's send scratch. */
    private final Function<TxScratch, Delivery> deliveries;
    /** What the port counted. */
    final PortStatistics stats;
    /** The port's socket: receives, and sends when flows have no source ports of their own. */
    final Datagrams io;
    /**
     * The socket of each flow source port 0xC000 + i, opened when a flow first sends from it (null: not yet), or
     * shared once {@link #maxFlowSockets} are open; null when every packet leaves from {@link #io}.
     */
    private final AtomicReferenceArray<Datagrams> flowSockets;
    private final List<Datagrams> flowOpened = new ArrayList<>();
    private final int maxFlowSockets;
    final Gid localGid;
    final boolean ipv6;
    /** The interface of a link-local IPv6 address, else 0 (the scope of link-local destinations). */
    final int scopeId;
    /** The port's active MTU, from the interface that holds its address. */
    final LinkMtu linkMtu;
    /** IPv4 address, big-endian int (IPv4 ports). */
    final int localV4;
    final QpQueue queue;
    /** The engine holder's receive and send scratch. */
    final EngineLane lane;
    /** The backstop's lane when it stands in for a stalled caller, made when it first does; else null. */
    private volatile EngineLane standIn;
    private final int batch;
    private final int slotSize;
    private final boolean gather;
    private final boolean busyPoll;
    /**
     * How long the pollers spin on the idle port before they wait ({@link JniDriverBuilder#pollerWaitNanos}; null:
     * never wait); the holder's.
     */
    private final PollerSpin pollerSpin;
    /** The thread whose progress call ({@link #progress}) may wait in {@code poll} when its cycle is idle, or null. */
    private volatile Thread mayWait;
    /** When the pollers' cycles began to find the port idle (System.nanoTime), 0 while they find work. The holder's. */
    private long idleSince;
    /**
     * A poller waits in {@code poll} inside the engine ({@link #waitIfIdle}): not stalled, the datagram wakes it, so
     * the backstop does not stand in for it (nor wait on the same socket).
     */
    private volatile boolean pollerWaiting;
    /** True while the port counts among {@link #PROGRESS_PORTS} (from start to stop, which the driver serialises). */
    private boolean countedProgress;
    private volatile boolean running;
    private volatile boolean sleeping;
    /** The empty cycles the port's thread spun before its last wait in {@code poll} that followed work. */
    private volatile int lastSpinRun = -1;
    /** The longest a port engine run only by send-only cycles goes without a receive. */
    private static final long RECEIVE_AT_LEAST_NANOS = 100_000L;
    /** When the engine last received (System.nanoTime; the holder's). */
    private long lastReceiveNanos = System.nanoTime();
    /**
     * The last receive returned datagrams but fewer than a batch, so it emptied the socket: the cycle that follows at
     * once (the progress loop runs another cycle after every one that did work) does not ask the socket again, which
     * then almost always answered nothing (two of a ping-pong's five {@code recvmmsg} per side). The holder's.
     */
    private boolean socketEmptied;
    /** The port's slot in {@link OwedSends}' table while it runs in PROGRESS mode, else -1. */
    private volatile int owedSlot = -1;
    /** The thread that asked for a cycle without its receive ({@link #sendScheduled}), or null. */
    private volatile Thread sendOnly;
    /** INVOKER: the thread that {@link #adopt adopted} the engine; else null. */
    private volatile Thread thread;
    /** PROGRESS or DEDICATED: who is in the engine, and the port's thread (null before {@link #start}). */
    private volatile ProgressEngine engine;
    private String roleName = "rvt-jni-port";

    /** The kernel's drop count at the last reading (from the socket's opening: it counts from 0). */
    private long lastKernelDrops;
    /** Cycles since the last one that received nothing (0: idle). */
    private int busyCycles;
    /** The least time between two readings of the kernel's drop count at the ends of bursts. */
    private static final long DROPS_READ_INTERVAL_NANOS = 1_000_000L;
    /** When the drop count was last read at a burst's end (System.nanoTime). */
    private long lastDropsRead = System.nanoTime() - DROPS_READ_INTERVAL_NANOS;
    /** A burst ended within the interval: the next idle cycle after it reads the count. */
    private boolean dropsUnread;
    /**
     * @param b the driver's settings (name, MTU, wire, source ports, max QP, batch, busy polling, poller wait)
     * @param portNum the port, 1-based
     * @param io its socket
     * @param slotSize bytes of a send slot: the largest packet
     * @param rxSlotSize bytes of a receive slot: the largest packet, or {@link JniDriver#GRO_SLOT_SIZE} when the
     *        socket takes coalesced datagrams
     * @param sockets the driver's sockets, where flow source sockets are opened
     * @param roce the wire's send half
     * @param receiver the wire's receive half
     * @param deliveries makes a lane's receive path in the driver's skeleton, bound to the lane's send scratch
     */
    PortEngine(JniDriverBuilder b, int portNum, Datagrams io, int slotSize, int rxSlotSize, Sockets sockets,
            RoceSender roce, RoceReceiver receiver, Function<TxScratch, Delivery> deliveries) {
        this.driverName = b.name;
        this.portNum = portNum;
        this.io = io;
        this.sockets = sockets;
        this.roce = roce;
        this.receiver = receiver;
        this.deliveries = deliveries;
        this.maxFlowSockets = b.sourcePorts;
        this.flowSockets = b.sourcePorts > 1 ? new AtomicReferenceArray<>(0x4000) : null;
        this.localGid = Peer.gidOf(io.localAddress());
        this.ipv6 = io.localAddress() instanceof Inet6Address;
        this.scopeId = io.scopeId();
        PathMtu mtu = b.mtu;
        this.linkMtu = new LinkMtu(io.localAddress(), mtu);
        this.localV4 = (int) localGid.interfaceId();
        this.queue = new QpQueue(b.maxQp);
        this.batch = b.batch;
        this.slotSize = slotSize;
        this.gather = b.wire == Wire.NATIVE;
        this.lane = newLane(rxSlotSize);
        this.busyPoll = b.busyPoll;
        this.pollerSpin = b.pollerWaitNanos == 0 ? null : new PollerSpin(b.pollerWaitNanos, b.adaptivePollerSpin);
        int receiveBufferBytes = io.bufferBytes(false);
        this.stats = new PortStatistics(receiveBufferBytes, io.bufferBytes(true),
                JniDriver.rcWindowPackets(receiveBufferBytes, mtu.bytes()), lane, this::standInWork);
    }

    /** A lane: a receive batch, a send batch and its receive path in the driver's skeleton. */
    private EngineLane newLane(int rxSlotSize) {
        TxScratch tx = new TxScratch(batch, slotSize, gather);
        return new EngineLane(new RxBatch(batch, rxSlotSize), tx, deliveries.apply(tx));
    }

    /**
     * The device registered the driver: the port's counters go to {@code port} from now on.
     *
     * @param port the device's view of this port
     */
    void registered(DriverPort port) {
        driverPort = port;
    }

    /** @return the device's view of this port, or null before registration */
    DriverPort driverPort() {
        return driverPort;
    }

    /**
     * Counts a datagram dropped as malformed: the port's {@link PortStatistics#malformed()} and the device's
     * {@code RX_MALFORMED}.
     *
     * @param port the device's view of this port
     */
    void dropMalformed(DriverPort port) {
        stats.countMalformed();
        port.addCounter(PortCounter.RX_MALFORMED, 1);
    }

    /**
     * Starts the port's engine: its thread (the backstop with PROGRESS).
     *
     * @param name the thread's name
     * @param mode PROGRESS or DEDICATED
     * @param quietNanos PROGRESS: how long no poller may have run the engine before the port's thread does
     */
    void start(String name, ThreadingMode mode, long quietNanos) {
        running = true;
        roleName = name;
        if (mode == ThreadingMode.PROGRESS) {
            owedSlot = OwedSends.register(this);
            PROGRESS_PORTS.incrementAndGet();
            countedProgress = true;
        }
        engine = ProgressEngine.start(this, mode == ThreadingMode.PROGRESS ? new StandIn() : null, mode,
                new SocketWait(), quietNanos,
                e -> System.getLogger(JniDriver.class.getName()).log(System.Logger.Level.WARNING,
                        "port " + portNum + " engine of " + driverName + " failed", e));
    }

    /** Stops the engine's thread and waits for it (and for a poller still in the engine). */
    void stop() {
        if (countedProgress) {
            countedProgress = false;
            PROGRESS_PORTS.decrementAndGet();
        }
        running = false;
        OwedSends.unregister(this, owedSlot);
        owedSlot = -1;
        ProgressEngine e = engine;
        if (e != null) {
            io.wakeup();
            e.close(); // from the engine's own cycle it only stops the loop, which ends when that cycle returns
        }
    }

    /**
     * The progress hook of this port: runs its duty cycle on the calling thread if no other thread is in it.
     *
     * @param budget the work after which to stop
     * @return the work done
     */
    int progress(int budget) {
        ProgressEngine e = engine;
        if (e == null || !running) {
            return 0;
        }
        if (pollerSpin == null || PROGRESS_PORTS.get() != 1) {
            return e.progress(budget);
        }
        mayWait = Thread.currentThread();
        try {
            return e.progress(budget);
        } finally {
            mayWait = null;
        }
    }

    /**
     * The send half of the duty cycle on the calling thread, if no other thread is in the engine: the QPs queued
     * (a thread's posts, {@link OwedSends}) are drained and their packets sent in batches; nothing is received
     * (the thread progresses its own HCA's ports next, and this port's receive comes at its next full cycle, or now if
     * it has not received for a while).
     *
     * @param budget the work after which to stop
     * @return the QPs drained
     */
    int sendScheduled(int budget) {
        ProgressEngine e = engine;
        if (e == null || !running) {
            return 0;
        }
        Thread self = Thread.currentThread();
        sendOnly = self;
        try {
            return e.progress(budget);
        } finally {
            sendOnly = null;
        }
    }

    /** @return the running PROGRESS ports of the JVM (this class loader): pollers wait only when it is 1 */
    static int progressPorts() {
        return PROGRESS_PORTS.get();
    }

    /** @return true while a thread runs a duty cycle (whose batch may hold packets not yet sent) */
    boolean isCycling() {
        EngineLane s = standIn;
        return lane.cycling || s != null && s.cycling;
    }

    /** @return the stand-in's cycles that did work beside a caller stalled in the engine (PROGRESS), else 0 */
    long standInWork() {
        ProgressEngine e = engine;
        return e != null ? e.standInWork() : 0;
    }

    /** @return the duty cycles the port's backstop thread ran that did work (PROGRESS), else 0 */
    long backstopWork() {
        ProgressEngine e = engine;
        return e != null ? e.backstopWork() : 0;
    }

    /** @return the port's slot among the running PROGRESS ports ({@link OwedSends}), -1 if it has none */
    int owedSlot() {
        return owedSlot;
    }

    /** @return true if the calling thread is this port's engine (now: it holds it, or stands in for its holder) */
    boolean isEngineThread() {
        ProgressEngine e = engine;
        if (e == null) {
            return Thread.currentThread() == thread;
        }
        if (e.isHeldByCurrentThread()) {
            return true;
        }
        EngineLane s = standIn;
        return s != null && s.cycling && s.owner == Thread.currentThread();
    }

    /**
     * @return the lane the calling thread receives with: the stand-in's on the backstop standing in, else the holder's
     *         (the backstop's too when it runs the engine itself)
     */
    EngineLane receivingLane() {
        EngineLane s = standIn;
        return s != null && s.cycling && s.owner == Thread.currentThread() ? s : lane;
    }

    /** @return the empty cycles the port's thread spun before its last wait in poll after work, -1 if none yet */
    int lastSpinRun() {
        return lastSpinRun;
    }

    /** @return the port's thread (the backstop with PROGRESS), or the adopting thread, or null before start */
    Thread thread() {
        ProgressEngine e = engine;
        return e != null ? e.thread() : thread;
    }

    @Override
    public int doWork() {
        return cycle();
    }

    @Override
    public String roleName() {
        return roleName;
    }

    /**
     * Queues a QP whose pending counter the caller raised from 0 and wakes the engine if it waits.
     *
     * @param q the QP
     */
    void schedule(QpSendEngine q) {
        if (!queue.offer(q)) {
            // Each QP is queued at most once at a time and the queue holds max_qp entries: cannot happen.
            throw new IllegalStateException("send queue of port " + portNum + " of " + driverName + " is full");
        }
        if (sleeping && !isEngineThread()) {
            io.wakeup();
        }
    }

    /** The port's thread between empty cycles: spins, then (unless busy-polling) waits on the socket. */
    private final class SocketWait implements IdleStrategy {
        private int idle;

        @Override
        public void idle(int workCount) {
            if (workCount > 0) {
                idle = 0;
            } else {
                idle();
            }
        }

        @Override
        public void idle() {
            if (busyPoll || ++idle < SPINS) {
                Thread.onSpinWait();
            } else {
                if (idle == SPINS) {
                    lastSpinRun = idle;
                }
                if (pollerWaiting) {
                    LockSupport.parkNanos(POLLER_WAIT_MILLIS * 1_000_000L); // the waiting poller is woken instead
                    return;
                }
                sleeping = true;
                if (queue.isEmpty() && running) {
                    io.await(WAIT_MILLIS);
                }
                sleeping = false;
            }
        }

        @Override
        public void reset() {
            idle = 0;
        }

        @Override
        public String alias() {
            return busyPoll ? "spin" : "spin-then-poll";
        }
    }

    /**
     * One duty cycle: a receive batch, then the QPs scheduled meanwhile, then what they sent goes out. Runs on the
     * engine thread, or on the caller's thread when the driver has no threads of its own ({@link JniDriver#doWork}).
     *
     * @return the datagrams received plus the QPs drained (0: idle)
     */
    int cycle() {
        return cycle(lane);
    }

    /**
     * A duty cycle with lane {@code l}: the holder's ({@link #lane}) receives unless the socket was just emptied (or,
     * sending only, unless a receive is overdue); the stand-in's always receives. The receive path never throws for
     * bad packets; anything else is a bug: reported, and the engine keeps serving.
     */
    private int cycle(EngineLane l) {
        int work = 0;
        l.cycling = true;
        try {
            if (l != lane) {
                work += receiveBatch(l);
            } else {
                boolean emptied = socketEmptied;
                socketEmptied = false;
                if (sendOnly == Thread.currentThread() ? receiveOverdue() : !emptied) {
                    work += receive();
                }
            }
            work += drainQueue(l);
            if (l != lane) {
                return work;
            } else if (work > 0) {
                if (idleSince != 0) {
                    pollerSpin.gapEnded(System.nanoTime() - idleSince);
                    idleSince = 0;
                }
            } else if (mayWait == Thread.currentThread()) {
                waitIfIdle();
            }
        } catch (RuntimeException | Error e) {
            System.getLogger(JniDriver.class.getName()).log(System.Logger.Level.WARNING,
                    "port " + portNum + " engine of " + driverName + " failed", e);
        } finally {
            l.cycling = false;
        }
        return work;
    }

    /** The cycle's send half: the QPs queued, drained with the lane's scratch; what they made goes out. */
    private int drainQueue(EngineLane l) {
        int work = 0;
        QpSendEngine q;
        while ((q = queue.poll()) != null) {
            l.delivery.drain(q);
            work++;
        }
        roce.flush(l.tx);
        return work;
    }

    /**
     * The backstop's duty cycle beside a caller stalled in the engine ({@link ProgressEngine}'s stand-in): a receive
     * batch with the backstop's own lane, then the queued QPs, each QP's packets sent as it is drained (a lane that
     * is not the holder's flushes per QP, {@link JniDriver#packetsOut}).
     */
    private final class StandIn implements Agent {
        @Override
        public int doWork() {
            if (pollerWaiting) {
                return 0;
            }
            EngineLane l = standIn;
            if (l == null) {
                l = newLane(lane.rx.slotSize);
                l.owner = Thread.currentThread();
                standIn = l;
                stats.standIn(l);
            }
            return cycle(l);
        }

        @Override
        public String roleName() {
            return roleName + "-stand-in";
        }
    }

    /**
     * A poller's idle cycle ({@link JniDriverBuilder#pollerWaitNanos}): once the pollers have found the port idle for
     * the spin {@link #pollerSpin} gives (the wait time, or less as it adapts), waits in {@code poll} on the socket
     * and the eventfd a queued send signals (up to
     * {@value #POLLER_WAIT_MILLIS} ms), still holding the engine, so the backstop stays parked. Between two processes
     * on a machine with more busy threads than cores, a poller spinning on an empty socket kept the core from the
     * peer it waited for: 20 empty {@code recvmmsg} per message received, 0.03x one process's SEND rate.
     */
    private void waitIfIdle() {
        long now = System.nanoTime();
        if (idleSince == 0) {
            idleSince = now;
            return;
        }
        if (now - idleSince < pollerSpin.spinNanos()) {
            return;
        }
        sleeping = true;
        pollerWaiting = true;
        try {
            if (queue.isEmpty() && running) {
                pollerSpin.waiting(); // only a real wait puts a wake-up into the gap
                stats.countPollerWait();
                io.await(POLLER_WAIT_MILLIS);
            }
        } finally {
            pollerWaiting = false;
            sleeping = false;
        }
    }

    /**
     * A send-only cycle counts as the callers' progress for the backstop, which then does not receive: a thread that
     * posts on this port without ever polling its CQs must still let it receive (its ACKs) now and then.
     */
    private boolean receiveOverdue() {
        return System.nanoTime() - lastReceiveNanos > RECEIVE_AT_LEAST_NANOS;
    }

    /** The cycle's receive half: a batch, each datagram handed on, the sends it deferred; the kernel's drops. */
    private int receive() {
        lastReceiveNanos = System.nanoTime();
        int n = receiveBatch(lane);
        if (n != 0) {
            socketEmptied = n < lane.rx.slots;
        }
        // The kernel drops only while datagrams arrive: read its count when a burst ends, and now and then
        // during a long one (a system call, so not every cycle).
        // At most one reading a millisecond: a ping-pong ends a "burst" with every message, and the reading is
        // a system call (getsockopt) per message; an idle cycle takes the reading a throttled burst end owes.
        if (n > 0) {
            if ((++busyCycles & 1023) == 0) {
                readKernelDrops();
            }
        } else if (busyCycles != 0 || dropsUnread) {
            busyCycles = 0;
            long now = System.nanoTime();
            if (now - lastDropsRead >= DROPS_READ_INTERVAL_NANOS) {
                lastDropsRead = now;
                dropsUnread = false;
                readKernelDrops();
            } else {
                dropsUnread = true;
            }
        }
        return n;
    }

    /** A receive batch with {@code l}'s scratch: each datagram handed on, then the sends the batch deferred. */
    private int receiveBatch(EngineLane l) {
        int n = io.receive(l.rx);
        l.receiveCalls++;
        if (n == 0) {
            l.emptyReceives++;
        } else {
            l.datagramsReceived += n;
        }
        for (int i = 0; i < n; i++) {
            receiver.onDatagram(this, l, i);
        }
        l.delivery.endBatch();
        return n;
    }

    /** Adds what the kernel dropped for the port's socket since the last reading to {@code RX_KERNEL_DROPS}. */
    void readKernelDrops() {
        long now = io.kernelDrops();
        if (now < 0) {
            return;
        }
        long delta = (now - lastKernelDrops) & 0xFFFF_FFFFL; // the kernel's count is 32 bits and wraps
        lastKernelDrops = now;
        if (delta != 0) {
            stats.countKernelDrops(delta);
            DriverPort dp = driverPort;
            if (dp != null) {
                dp.addCounter(PortCounter.RX_KERNEL_DROPS, delta);
            }
        }
    }

    /**
     * Makes the calling thread this port's engine, for a driver without threads of its own: it alone may call
     * {@link #cycle()} from now on.
     */
    void adopt() {
        thread = Thread.currentThread();
    }

    /**
     * The socket a flow's packets leave from: the one bound to its {@link JniDriver#flowSourcePort}, opened on the
     * flow's first packet; once the port has its most flow sockets, a flow without one shares an open one.
     *
     * @param qpn the sending QP
     * @param destQpn the destination QP
     * @param flowLabel the path's flow label, 0 if none
     * @return the socket
     */
    Datagrams sender(int qpn, int destQpn, int flowLabel) {
        if (flowSockets == null) {
            return io;
        }
        int i = JniDriver.flowSourcePort(qpn, destQpn, flowLabel) - 0xC000;
        Datagrams s = flowSockets.get(i);
        return s != null ? s : openFlowSocket(i);
    }

    private synchronized Datagrams openFlowSocket(int i) {
        Datagrams s = flowSockets.get(i);
        if (s != null) {
            return s;
        }
        if (flowOpened.size() < maxFlowSockets) {
            try {
                s = sockets.open(io.localAddress(), 0xC000 + i, true);
                if (s != null) {
                    flowOpened.add(s);
                }
            } catch (UdpException e) {
                // Taken by a socket of another program (without SO_REUSEPORT): share one of ours instead.
                s = null;
            }
        }
        if (s == null) {
            s = flowOpened.isEmpty() ? io : flowOpened.get(i % flowOpened.size());
        }
        flowSockets.set(i, s);
        return s;
    }
}
