package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AhAttr;
import io.rvt.api.CompletionChannel;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.ConnectedPair;
import io.rvt.cm.Connection;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.Listener;
import io.rvt.cm.QpOptions;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Helpers of the conformance suite: connected QP pairs, waiting for completions with a deadline (driving the
 * fixture), and data patterns.
 */
public final class Verbs implements AutoCloseable {
    /** How long a test waits for an expected completion before failing (real time). */
    public static final long DEADLINE_NANOS = 20_000_000_000L;

    /** Send and receive queue depth of every endpoint's QP. */
    private static final int QUEUE_DEPTH = 64;
    /** Scatter/gather entries per work request of every endpoint's QP. */
    private static final int MAX_SGE = 4;
    /**
     * The RC local ACK timeout code of connected QPs by default: 14, 4.096 us x 2^14, about 67 ms per try and 0.54 s
     * for the 7 retries; robust against a busy machine in real time, free in virtual time.
     */
    public static final int DEFAULT_LOCAL_ACK_TIMEOUT = 14;
    /** The first CM port connected pairs listen on; each pair takes the next. */
    private static final int FIRST_CM_PORT = 20000;

    private final DriverFixture fixture;
    private final Map<Device, ConnectionManager> cms = new IdentityHashMap<>();
    private final AtomicInteger ports = new AtomicInteger(FIRST_CM_PORT);
    /** Initial PSNs: random, from the fixture's seed so that a seeded run stays a function of its seed. */
    private final SplittableRandom psns;
    /** The RC local ACK timeout code of the QPs connected from now on ({@link #localAckTimeout(int)}). */
    private int localAckTimeout = DEFAULT_LOCAL_ACK_TIMEOUT;

    /**
     * @param fixture the driver's fixture
     */
    public Verbs(DriverFixture fixture) {
        this.fixture = fixture;
        this.psns = new SplittableRandom(fixture.seed() ^ 0x5053_4E5F_5345_4544L);
    }

    /**
     * Sets the RC local ACK timeout of the QPs this object connects from now on (IBTA's 5-bit code, 4.096 us x
     * 2^code per try; 7 retries): for QPs between processes whose peer, a JVM starting on a loaded machine, can be
     * silent for longer than {@link #DEFAULT_LOCAL_ACK_TIMEOUT}'s 0.54 s.
     *
     * @param code 1..31
     * @return this
     * @throws IllegalArgumentException if out of range
     */
    public Verbs localAckTimeout(int code) {
        if (code < 1 || code > 31) {
            throw new IllegalArgumentException("local ACK timeout code must be 1..31, got " + code);
        }
        localAckTimeout = code;
        return this;
    }

    /**
     * Creates an endpoint on {@code device}.
     *
     * @param device the device
     * @param type the QP type
     * @param bufferBytes size of the registered buffer
     * @return the endpoint, QP in RESET, with a random {@link Endpoint#initialPsn}
     */
    public Endpoint endpoint(Device device, QpType type, int bufferBytes) {
        return new Endpoint(device, type, bufferBytes, QUEUE_DEPTH, MAX_SGE, psns.nextInt(1 << 24));
    }

    /**
     * Two endpoints of {@code type} (RC or UC) on two devices, connected through rvt-cm (a REQ/REP/RTU exchange over
     * the devices' GSI QPs, as applications connect) and in RTS. The first device's QP is the active side.
     *
     * @param a first device
     * @param b second device
     * @param type RC or UC
     * @param bufferBytes buffer size on each side
     * @param rnrRetry the RNR retry count of both QPs (7 = forever)
     * @param minRnrTimer the RNR NAK timer code both QPs send
     * @return the two endpoints
     */
    public Endpoint[] connected(Device a, Device b, QpType type, int bufferBytes, int rnrRetry, int minRnrTimer) {
        return connected(a, null, b, null, type, bufferBytes, rnrRetry, minRnrTimer);
    }

    /**
     * {@link #connected(Device, Device, QpType, int, int, int)} with each endpoint's send and receive CQs created on a
     * completion channel ({@code ibv_create_cq}'s {@code channel}).
     *
     * @param a first device
     * @param channelA the channel of {@code a}'s CQs, or null
     * @param b second device
     * @param channelB the channel of {@code b}'s CQs, or null
     * @param type RC or UC
     * @param bufferBytes buffer size on each side
     * @param rnrRetry the RNR retry count of both QPs (7 = forever)
     * @param minRnrTimer the RNR NAK timer code both QPs send
     * @return the two endpoints
     */
    public Endpoint[] connected(Device a, CompletionChannel channelA, Device b, CompletionChannel channelB,
            QpType type, int bufferBytes, int rnrRetry, int minRnrTimer) {
        Endpoint.Resources ra = new Endpoint.Resources(a, bufferBytes, QUEUE_DEPTH, channelA);
        Endpoint.Resources rb = new Endpoint.Resources(b, bufferBytes, QUEUE_DEPTH, channelB);
        CompletableFuture<ConnectedPair> f = ConnectedPair.connectAsync(cm(a), qpOptions(ra, type, rnrRetry,
                minRnrTimer), cm(b), qpOptions(rb, type, rnrRetry, minRnrTimer), ports.getAndIncrement(), 1);
        awaitTrue("the QPs of " + a.name() + " and " + b.name() + " connected through rvt-cm", f::isDone);
        ConnectedPair pair = f.join();
        return new Endpoint[] {Endpoint.of(ra, pair.active()), Endpoint.of(rb, pair.passive())};
    }

    /**
     * The listening half of a connection between two processes: listens on CM port {@code port} of {@code device},
     * accepts the first request and returns once the connection is established.
     *
     * @param device the device
     * @param type RC or UC
     * @param bufferBytes the registered buffer's size
     * @param port the CM port
     * @param maxMtu the largest path MTU to agree on (e.g. {@link PathMtu#MTU_1024} on a 1500-byte Ethernet link)
     * @return the endpoint, in RTS, its {@link Endpoint#connection} established
     */
    public Endpoint accept(Device device, QpType type, int bufferBytes, int port, PathMtu maxMtu) {
        return accept(device, listen(device, port), type, bufferBytes, maxMtu);
    }

    /**
     * Listens on CM port {@code port} of {@code device}, for a process that must tell its peer it listens before the
     * peer connects (a REQ that arrives first is rejected: no one listens); hand it to
     * {@link #accept(Device, Listener, QpType, int, PathMtu)}.
     *
     * @param device the device
     * @param port the CM port
     * @return the listener
     */
    public Listener listen(Device device, int port) {
        return cm(device).listen(port);
    }

    /**
     * The listening half of a connection on a listener from {@link #listen}: accepts the first request, returns once
     * the connection is established, and closes the listener.
     *
     * @param device the device it listens on
     * @param listener the listener
     * @param type RC or UC
     * @param bufferBytes the registered buffer's size
     * @param maxMtu the largest path MTU to agree on
     * @return the endpoint, in RTS, its {@link Endpoint#connection} established
     */
    public Endpoint accept(Device device, Listener listener, QpType type, int bufferBytes, PathMtu maxMtu) {
        int port = listener.port();
        Endpoint.Resources r = new Endpoint.Resources(device, bufferBytes, QUEUE_DEPTH);
        try {
            CompletableFuture<ConnectRequest> request = listener.nextRequest();
            awaitTrue("a connection request on CM port " + port + " of " + device.name(), request::isDone);
            Connection c = request.join().acceptAsync(qpOptions(r, type, 7, 1).pathMtu(maxMtu), null);
            awaitTrue("the connection on CM port " + port + " established", c.established()::isDone);
            return Endpoint.of(r, c.established().join());
        } finally {
            listener.close();
        }
    }

    /**
     * The connecting half of a connection between two processes (see {@link #accept}).
     *
     * @param device the device
     * @param type RC or UC
     * @param bufferBytes the registered buffer's size
     * @param server the listening port's GID (an IP address's GID on RoCEv2)
     * @param port the CM port it listens on
     * @param maxMtu the largest path MTU to agree on
     * @return the endpoint, in RTS, its {@link Endpoint#connection} established
     */
    public Endpoint connect(Device device, QpType type, int bufferBytes, Gid server, int port, PathMtu maxMtu) {
        Endpoint.Resources r = new Endpoint.Resources(device, bufferBytes, QUEUE_DEPTH);
        Connection c = cm(device).connectAsync(new ConnectOptions().destination(server).port(port)
                .qp(qpOptions(r, type, 7, 1).pathMtu(maxMtu)));
        awaitTrue("the connection to " + server + " CM port " + port + " established", c.established()::isDone);
        return Endpoint.of(r, c.established().join());
    }

    /** @return the connection manager of {@code device}, opened once per device with the fixture's configuration */
    private ConnectionManager cm(Device device) {
        // the handle stays open for the fixture's life: the CM goes with its device when the fixture closes
        return cms.computeIfAbsent(device, d -> ConnectionManager.of(d, fixture.cmConfig()));
    }

    /**
     * Releases the connection managers this object opened: each device's CM closes, with its GSI QPs and every
     * connection it still holds (their QPs are destroyed). Without it the CMs go with their devices.
     */
    @Override
    public void close() {
        cms.values().forEach(ConnectionManager::close);
        cms.clear();
    }

    private QpOptions qpOptions(Endpoint.Resources r, QpType type, int rnrRetry, int minRnrTimer) {
        QpOptions o = new QpOptions().pd(r.pd).sendCq(r.sendCq).recvCq(r.recvCq).type(type)
                .accessFlags(Endpoint.ALL_ACCESS).responderResources(4).initiatorDepth(4).retryCount(7)
                .rnrRetryCount(rnrRetry).minRnrTimer(minRnrTimer)
                .localAckTimeout(localAckTimeout);
        o.cap().maxSendWr(QUEUE_DEPTH).maxRecvWr(QUEUE_DEPTH).maxSendSge(MAX_SGE).maxRecvSge(MAX_SGE);
        return o;
    }

    /**
     * Brings a UD endpoint to RTS with Q_Key {@code qkey}.
     *
     * @param self the endpoint
     * @param qkey the Q_Key
     */
    public void activateUd(Endpoint self, int qkey) {
        self.qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(qkey),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
        self.qp.modifyQp(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE.bit());
        self.qp.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(self.initialPsn), QpAttrMask.mask(QpAttrMask.STATE,
                QpAttrMask.SQ_PSN));
    }

    /**
     * Polls {@code cq} until {@code n} completions arrived, driving the fixture, or fails after
     * {@link #DEADLINE_NANOS}.
     *
     * @param cq the CQ
     * @param n how many
     * @return the completions, in order
     */
    public List<WorkCompletion> await(CompletionQueue cq, int n) {
        List<WorkCompletion> got = new ArrayList<>(n);
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        WorkCompletion wc = new WorkCompletion();
        while (got.size() < n) {
            if (cq.pollCq(wc)) {
                got.add(new WorkCompletion().copyFrom(wc));
                continue;
            }
            if (!fixture.progress()) {
                Thread.onSpinWait();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited " + DEADLINE_NANOS / 1_000_000 + " ms for " + n
                        + " completions, got " + got.size() + ": " + got + " (seed " + fixture.seed() + ")");
            }
        }
        return got;
    }

    /**
     * Drives the fixture until {@code condition} holds or fails after the deadline.
     *
     * @param what a description for the failure message
     * @param condition the condition
     */
    public void awaitTrue(String what, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (!condition.getAsBoolean()) {
            if (!fixture.progress()) {
                Thread.onSpinWait();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + " (seed " + fixture.seed() + ")");
            }
        }
    }

    /**
     * Drives the fixture for a while and asserts {@code cq} stays empty.
     *
     * @param cq the CQ
     * @param rounds progress calls (and, for threaded drivers, polls)
     */
    public void assertQuiet(CompletionQueue cq, int rounds) {
        WorkCompletion wc = new WorkCompletion();
        for (int i = 0; i < rounds; i++) {
            fixture.progress();
            assertThat(cq.pollCq(wc)).as("unexpected completion %s (seed %d)", wc, fixture.seed()).isFalse();
        }
    }

    /**
     * Asserts a successful completion.
     *
     * @param wc the completion
     * @param wrId expected id
     */
    public static void assertSuccess(WorkCompletion wc, long wrId) {
        assertThat(wc.status()).as("status of %s", wc).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.wrId()).as("wrId of %s", wc).isEqualTo(wrId);
    }

    /**
     * @param dev a device
     * @return its port 1's counters that are not 0, e.g. {@code rc_timeouts=9 rc_resends=16 tx_packets=21}, for a
     *         failure's message (why RC retries ran out: timeouts, resends, NAKs, what went out and came in)
     */
    public static String nonZeroCounters(Device dev) {
        StringBuilder sb = new StringBuilder(dev.name()).append(" port 1:");
        for (io.rvt.api.PortCounter c : io.rvt.api.PortCounter.values()) {
            long v = dev.portCounter(1, c);
            if (v != 0) {
                sb.append(' ').append(c.name().toLowerCase(java.util.Locale.ROOT)).append('=').append(v);
            }
        }
        return sb.toString();
    }

    /**
     * Fills {@code len} bytes at {@code off} with a pattern derived from {@code seed}.
     *
     * @param buf the buffer
     * @param off first byte
     * @param len bytes
     * @param seed the pattern seed
     */
    public static void fill(ByteBuffer buf, int off, int len, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < len; i++) {
            buf.put(off + i, (byte) r.nextInt(256));
        }
    }

    /**
     * Asserts {@code len} bytes at {@code off} hold the pattern of {@code seed}.
     *
     * @param buf the buffer
     * @param off first byte
     * @param len bytes
     * @param seed the pattern seed
     */
    public static void assertPattern(ByteBuffer buf, int off, int len, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < len; i++) {
            byte want = (byte) r.nextInt(256);
            if (buf.get(off + i) != want) {
                throw new AssertionError("byte " + i + " of " + len + " differs: got " + buf.get(off + i)
                        + ", expected " + want + " (pattern seed " + seed + ")");
            }
        }
    }

    /**
     * @param a an endpoint
     * @return a new address handle to {@code a} in {@code from}'s PD
     * @param from the sender
     */
    public static io.rvt.api.AddressHandle ah(Endpoint from, Endpoint a) {
        return from.pd.createAh(a.address(new AhAttr()));
    }
}
