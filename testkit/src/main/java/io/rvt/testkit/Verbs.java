package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AhAttr;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
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
public final class Verbs {
    /** How long a test waits for an expected completion before failing (real time). */
    public static final long DEADLINE_NANOS = 20_000_000_000L;

    private final DriverFixture fixture;
    /** Initial PSNs: random, from the fixture's seed so that a seeded run stays a function of its seed. */
    private final SplittableRandom psns;

    /**
     * @param fixture the driver's fixture
     */
    public Verbs(DriverFixture fixture) {
        this.fixture = fixture;
        this.psns = new SplittableRandom(fixture.seed() ^ 0x5053_4E5F_5345_4544L);
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
        return new Endpoint(device, type, bufferBytes, 64, 4, psns.nextInt(1 << 24));
    }

    /**
     * Two endpoints of {@code type} (RC or UC) on two devices, connected and in RTS.
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
        Endpoint x = endpoint(a, type, bufferBytes);
        Endpoint y = endpoint(b, type, bufferBytes);
        connect(x, y, rnrRetry, minRnrTimer);
        connect(y, x, rnrRetry, minRnrTimer);
        return new Endpoint[] {x, y};
    }

    /**
     * Brings {@code self} to RTS talking to {@code peer} (RESET → INIT → RTR → RTS with the attributes each step
     * requires).
     *
     * @param self the QP to move
     * @param peer the remote side
     * @param rnrRetry RNR retry count
     * @param minRnrTimer RNR NAK timer code
     */
    public void connect(Endpoint self, Endpoint peer, int rnrRetry, int minRnrTimer) {
        boolean rc = self.qp.type() == QpType.RC;
        QpAttr a = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(Endpoint.ALL_ACCESS);
        self.qp.modifyQp(a, QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
                QpAttrMask.ACCESS_FLAGS));
        PathMtu mtu = self.device.queryPort(1, new PortAttr()).activeMtu();
        a = new QpAttr().qpState(QpState.RTR).pathMtu(mtu).destQpNum(peer.qp.qpNum()).rqPsn(peer.initialPsn);
        peer.address(a.ahAttr());
        int mask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN);
        if (rc) {
            a.maxDestRdAtomic(4).minRnrTimer(minRnrTimer);
            mask |= QpAttrMask.mask(QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
        }
        self.qp.modifyQp(a, mask);
        a = new QpAttr().qpState(QpState.RTS).sqPsn(self.initialPsn);
        mask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN);
        if (rc) {
            // 14: about 69 ms per try, robust against a busy machine in real time; free in virtual time
            a.timeout(14).retryCnt(7).rnrRetry(rnrRetry).maxRdAtomic(4);
            mask |= QpAttrMask.mask(QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                    QpAttrMask.MAX_QP_RD_ATOMIC);
        }
        self.qp.modifyQp(a, mask);
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
