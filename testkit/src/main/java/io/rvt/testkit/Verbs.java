package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AhAttr;
import io.rvt.api.CompletionChannel;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

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
    /** RDMA READ and atomic operations in flight each way on connected RC QPs (bounded by the devices). */
    private static final int RD_ATOMIC = 4;

    private final DriverFixture fixture;
    /** How {@link #connected} connects its pairs: the fixture's, made once and closed by {@link #close()}. */
    private PairConnector connector;
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
        return new Endpoint(device, type, bufferBytes, QUEUE_DEPTH, MAX_SGE, nextPsn());
    }

    /**
     * Two endpoints of {@code type} (RC or UC) on two devices, connected by the fixture's
     * {@link DriverFixture#connector()} (by default directly, by {@code modify_qp}; through rvt-cm in rvt-cm's tests
     * and the loopback driver's CM-connected variant) and in RTS. The first device's QP is the active side.
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
        if (connector == null) {
            connector = fixture.connector();
        }
        PairConnector.Connected[] c = connector.connect(ra, rb, spec(type, rnrRetry, minRnrTimer), this);
        return new Endpoint[] {Endpoint.of(ra, c[0]), Endpoint.of(rb, c[1])};
    }

    /**
     * @param type RC or UC
     * @param rnrRetry the RNR retry count (7 = forever)
     * @param minRnrTimer the RNR NAK timer code
     * @return what {@link #connected} asks of both QPs: every access right, retry count 7, the
     *         {@link #localAckTimeout(int)} set, this class's queue depth and SGEs
     */
    public PairConnector.Spec spec(QpType type, int rnrRetry, int minRnrTimer) {
        return new PairConnector.Spec(type, QUEUE_DEPTH, MAX_SGE, Endpoint.ALL_ACCESS, 7, rnrRetry, minRnrTimer,
                localAckTimeout, RD_ATOMIC);
    }

    /**
     * Creates what an endpoint holds before it has a QP, for a connection a test makes itself (e.g. through rvt-cm
     * between two processes; {@link Endpoint#of} then makes the endpoint).
     *
     * @param device the device
     * @param bufferBytes the registered buffer's size
     * @return its PD, CQs and registered buffer, sized for {@link #spec}'s queue depth
     */
    public Endpoint.Resources resources(Device device, int bufferBytes) {
        return new Endpoint.Resources(device, bufferBytes, QUEUE_DEPTH);
    }

    /** @return a random first PSN (24 bits), from the fixture's seed */
    public int nextPsn() {
        return psns.nextInt(1 << 24);
    }

    /**
     * Releases what the connector holds (rvt-cm's connection managers, with every connection they still hold and
     * their QPs); without it they go with the devices.
     */
    @Override
    public void close() {
        if (connector != null) {
            PairConnector c = connector;
            connector = null;
            c.close();
        }
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
