package io.rvt.core.mcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.QpState;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.McastGroup;
import io.rvt.core.RvtDevice;
import io.rvt.core.TestDriver;
import io.rvt.core.qp.RvtQp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class McastTableTest {
    private static final int MAX_GRP = 3;
    private static final int MAX_ATTACH = 2;
    private static final Gid G1 = Gid.of(0xFF12_401B_0000_0000L, 1);
    private static final Gid G2 = Gid.of(0xFF12_401B_0000_0000L, 2);
    private static final Gid G3 = Gid.of(0xFF12_401B_0000_0000L, 3);
    private static final Gid G4 = Gid.of(0xFF12_401B_0000_0000L, 4);
    private static final int L1 = 0xC001;
    private static final int L2 = 0xC002;

    private RvtDevice dev;
    private McastTable table;
    private final Map<RvtQp, AtomicInteger> refs = new HashMap<>();

    @BeforeEach
    void setUp() {
        dev = new TestDriver().params(TestDriver.defaultParams().nports(2).props(TestDriver.defaultProps()
                .maxMcastGrp(MAX_GRP).maxMcastQpAttach(MAX_ATTACH).build()).build()).register();
        table = dev.port(1).mcastTable();
    }

    @AfterEach
    void tearDown() {
        dev.unregister();
    }

    /** A mocked QP whose retain()/release() keep a reference count the test can read. */
    private RvtQp qp(int qpn, QpState state) {
        RvtQp qp = mock(RvtQp.class);
        when(qp.qpNum()).thenReturn(qpn);
        when(qp.state()).thenReturn(state);
        AtomicInteger n = new AtomicInteger();
        doAnswer(inv -> n.incrementAndGet()).when(qp).retain();
        doAnswer(inv -> n.decrementAndGet()).when(qp).release();
        refs.put(qp, n);
        return qp;
    }

    private RvtQp qp(int qpn) {
        return qp(qpn, QpState.RTS);
    }

    private int refsOf(RvtQp qp) {
        return refs.get(qp).get();
    }

    private static Consumer<Object> errno(Errno e) {
        return t -> assertThat(t).asInstanceOf(type(VerbsException.class))
                .extracting(VerbsException::errno).isEqualTo(e);
    }

    private long groupsCounted() {
        return dev.deviceCounter(DeviceCounter.MCAST_GRPS_ALLOCATED);
    }

    // ------------------------------------------------------------------ attach

    @Test
    void shouldRefuseAttachWhenQpIsSpecialOrInReset() {
        RvtQp qp0 = qp(0);
        RvtQp qp1 = qp(1);
        RvtQp reset = qp(7, QpState.RESET);

        assertThatThrownBy(() -> table.attach(qp0, G1, L1)).satisfies(errno(Errno.EINVAL)).hasMessageContaining("QP 0");
        assertThatThrownBy(() -> table.attach(qp1, G1, L1)).satisfies(errno(Errno.EINVAL)).hasMessageContaining("QP 1");
        assertThatThrownBy(() -> table.attach(reset, G1, L1)).satisfies(errno(Errno.EINVAL))
                .hasMessageContaining("RESET").hasMessageContaining("QP 7");

        assertThat(table.isEmpty()).isTrue();
        assertThat(groupsCounted()).isZero();
        verify(qp0, never()).retain();
        verify(qp1, never()).retain();
        verify(reset, never()).retain();
    }

    @Test
    void shouldCreateGroupAndRetainQpWhenFirstAttached() {
        RvtQp qp = qp(10, QpState.INIT);

        table.attach(qp, G1, L1);

        assertThat(table.isEmpty()).isFalse();
        assertThat(table.groupCount()).isEqualTo(1);
        assertThat(table.attachmentCount(qp)).isEqualTo(1);
        assertThat(groupsCounted()).isEqualTo(1);
        assertThat(refsOf(qp)).isEqualTo(1);
        McastGroup g = table.find(G1, L1);
        assertThat(g).isNotNull();
        assertThat(g.mgid()).isEqualTo(G1);
        assertThat(g.mlid()).isEqualTo(L1);
        assertThat(g.qps()).containsExactly(qp);
        g.release();
        assertThat(dev.port(2).mcastTable().isEmpty()).as("groups are per port").isTrue();
    }

    @Test
    void shouldSucceedWithoutChangeWhenQpIsAlreadyAttached() {
        RvtQp qp = qp(10);
        table.attach(qp, G1, L1);
        RvtMcast before = table.find(G1, L1);
        DriverQp[] snapshot = before.qps();
        before.release();

        table.attach(qp, G1, L1);

        verify(qp, times(1)).retain();
        assertThat(refsOf(qp)).isEqualTo(1);
        RvtMcast after = table.find(G1, L1);
        assertThat(after).isSameAs(before);
        assertThat(after.qps()).isSameAs(snapshot).containsExactly(qp);
        after.release();
        assertThat(groupsCounted()).isEqualTo(1);
    }

    @Test
    void shouldRefuseAttachWhenMgidHasAnotherMlid() {
        RvtQp a = qp(10);
        RvtQp b = qp(11);
        table.attach(a, G1, L1);

        assertThatThrownBy(() -> table.attach(b, G1, L2)).satisfies(errno(Errno.EINVAL))
                .hasMessageContaining(G1.toString()).hasMessageContaining("0xc001").hasMessageContaining("0xc002")
                .hasMessageContaining("QP 11");
        assertThatThrownBy(() -> table.attach(a, G1, L2)).satisfies(errno(Errno.EINVAL));

        assertThat(refsOf(b)).isZero();
        assertThat(refsOf(a)).isEqualTo(1);
        table.attach(b, G2, L1); // one MLID may serve several MGIDs
        assertThat(table.groupCount()).isEqualTo(2);
    }

    @Test
    void shouldRefuseWithEnomemWhenGroupHasMaxAttachedQps() {
        RvtQp a = qp(10);
        RvtQp b = qp(11);
        RvtQp c = qp(12);
        table.attach(a, G1, L1);
        table.attach(b, G1, L1);

        assertThatThrownBy(() -> table.attach(c, G1, L1)).satisfies(errno(Errno.ENOMEM))
                .hasMessageContaining("max_mcast_qp_attach=" + MAX_ATTACH).hasMessageContaining("QP 12");

        assertThat(refsOf(c)).isZero();
        assertThat(groupsCounted()).isEqualTo(1);
        RvtMcast g = table.find(G1, L1);
        assertThat(g.qps()).containsExactly(a, b);
        g.release();
    }

    @Test
    void shouldRefuseWithEnomemWhenDeviceHasMaxGroups() {
        RvtQp qp = qp(10);
        table.attach(qp, G1, L1);
        table.attach(qp, G2, L1);
        dev.port(2).mcastTable().attach(qp, G3, L1); // the limit is per device

        assertThatThrownBy(() -> table.attach(qp, G4, L1)).satisfies(errno(Errno.ENOMEM))
                .hasMessageContaining("max_mcast_grp=" + MAX_GRP).hasMessageContaining(G4.toString());

        assertThat(groupsCounted()).isEqualTo(MAX_GRP);
        assertThat(refsOf(qp)).isEqualTo(3);
        assertThat(table.find(G4, L1)).isNull();

        table.detach(qp, G1, L1);
        table.attach(qp, G4, L1); // room again
        assertThat(groupsCounted()).isEqualTo(MAX_GRP);
    }

    // ------------------------------------------------------------------ find

    @Test
    void shouldFindNothingWhenMlidDiffersOrMgidIsUnknown() {
        RvtQp qp = qp(10);
        table.attach(qp, G1, L1);

        assertThat(table.find(G1, L2)).isNull();
        assertThat(table.find(G2, L1)).isNull();
        RvtMcast g = table.find(G1, L1);
        assertThat(g.refCount()).as("table + one finder").isEqualTo(2);
        g.release();
        assertThat(g.refCount()).isEqualTo(1);
    }

    @Test
    void shouldOrderMgidsAsUnsignedBytesWhenPrefixesDifferInTheTopBit() {
        // Signed comparison would make these collide in order or misplace them; memcmp order keeps both.
        Gid low = Gid.of(0x7F00_0000_0000_0000L, -1L);
        Gid high = Gid.of(0xFF00_0000_0000_0000L, 0L);
        RvtQp qp = qp(10);
        table.attach(qp, low, L1);
        table.attach(qp, high, L2);

        assertThat(table.find(low, L1).mgid()).isEqualTo(low);
        assertThat(table.find(high, L2).mgid()).isEqualTo(high);
        assertThat(low.compareBytes(high)).isNegative();
        assertThat(table.attachmentCount(qp)).isEqualTo(2);
    }

    @Test
    void shouldRefuseReleaseWhenNoReferenceIsHeld() {
        RvtQp qp = qp(10);
        table.attach(qp, G1, L1);
        RvtMcast g = table.find(G1, L1);
        g.release();
        table.detach(qp, G1, L1);
        assertThat(g.refCount()).isZero();

        assertThatThrownBy(g::release).isInstanceOf(IllegalStateException.class);
        assertThat(g.refCount()).isZero();
    }

    // ------------------------------------------------------------------ detach

    @Test
    void shouldRefuseDetachWhenQpGroupOrMlidDoNotMatch() {
        RvtQp a = qp(10);
        RvtQp b = qp(11);
        RvtQp special = qp(1);
        table.attach(a, G1, L1);

        assertThatThrownBy(() -> table.detach(special, G1, L1)).satisfies(errno(Errno.EINVAL))
                .hasMessageContaining("QP 1");
        assertThatThrownBy(() -> table.detach(a, G2, L1)).satisfies(errno(Errno.EINVAL))
                .hasMessageContaining(G2.toString());
        assertThatThrownBy(() -> table.detach(a, G1, L2)).satisfies(errno(Errno.EINVAL))
                .hasMessageContaining("0xc002");
        assertThatThrownBy(() -> table.detach(b, G1, L1)).satisfies(errno(Errno.EINVAL))
                .hasMessageContaining("QP 11").hasMessageContaining("not attached");

        verify(a, never()).release();
        verify(b, never()).release();
        assertThat(table.attachmentCount(a)).isEqualTo(1);
        assertThat(groupsCounted()).isEqualTo(1);
    }

    @Test
    void shouldRemoveEmptyGroupAndDropReferencesWhenLastQpDetaches() {
        RvtQp a = qp(10);
        RvtQp b = qp(11);
        table.attach(a, G1, L1);
        table.attach(b, G1, L1);
        RvtMcast g = table.find(G1, L1);
        g.release();

        table.detach(a, G1, L1);
        assertThat(refsOf(a)).isZero();
        assertThat(g.qps()).containsExactly(b);
        assertThat(table.groupCount()).isEqualTo(1);
        assertThat(groupsCounted()).isEqualTo(1);

        table.detach(b, G1, L1);
        assertThat(refsOf(b)).isZero();
        assertThat(table.isEmpty()).isTrue();
        assertThat(groupsCounted()).isZero();
        assertThat(g.refCount()).isZero();
        assertThat(table.find(G1, L1)).isNull();
        assertThatThrownBy(() -> table.detach(b, G1, L1)).satisfies(errno(Errno.EINVAL));
    }

    @Test
    void shouldReturnQpReferencesToBaselineWhenOperationsAreRandom() {
        SplittableRandom seeds = new SplittableRandom(0x3C_A57L);
        Gid[] gids = {G1, G2, G3, G4};
        int[] lids = {L1, L2};
        for (int run = 0; run < 100; run++) {
            long seed = seeds.nextLong();
            SplittableRandom rnd = new SplittableRandom(seed);
            List<RvtQp> qps = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                qps.add(qp(10 + i));
            }
            Map<Gid, Integer> modelLid = new HashMap<>();
            Map<Gid, Set<RvtQp>> model = new HashMap<>();
            for (int step = 0; step < 150; step++) {
                String ctx = "seed=" + seed + " step=" + step;
                RvtQp qp = qps.get(rnd.nextInt(qps.size()));
                Gid gid = gids[rnd.nextInt(gids.length)];
                int lid = lids[rnd.nextInt(lids.length)];
                Set<RvtQp> members = model.get(gid);
                Errno expected;
                if (rnd.nextBoolean()) {
                    if (members != null && modelLid.get(gid) != lid) {
                        expected = Errno.EINVAL;
                    } else if (members != null && members.contains(qp)) {
                        expected = null;
                    } else if (members != null && members.size() >= MAX_ATTACH) {
                        expected = Errno.ENOMEM;
                    } else if (members == null && model.size() >= MAX_GRP) {
                        expected = Errno.ENOMEM;
                    } else {
                        expected = null;
                        model.computeIfAbsent(gid, k -> new HashSet<>()).add(qp);
                        modelLid.put(gid, lid);
                    }
                    check(() -> table.attach(qp, gid, lid), expected, "attach; " + ctx);
                } else {
                    if (members == null || modelLid.get(gid) != lid || !members.contains(qp)) {
                        expected = Errno.EINVAL;
                    } else {
                        expected = null;
                        members.remove(qp);
                        if (members.isEmpty()) {
                            model.remove(gid);
                            modelLid.remove(gid);
                        }
                    }
                    check(() -> table.detach(qp, gid, lid), expected, "detach; " + ctx);
                }
                assertThat(groupsCounted()).as("groups; %s", ctx).isEqualTo(model.size());
                for (RvtQp q : qps) {
                    long attached = model.values().stream().filter(s -> s.contains(q)).count();
                    assertThat(table.attachmentCount(q)).as("attachments of QP %d; %s", q.qpNum(), ctx)
                            .isEqualTo((int) attached);
                    assertThat(refsOf(q)).as("references of QP %d; %s", q.qpNum(), ctx).isEqualTo((int) attached);
                }
            }
            for (Map.Entry<Gid, Set<RvtQp>> e : model.entrySet()) {
                for (RvtQp q : e.getValue()) {
                    table.detach(q, e.getKey(), modelLid.get(e.getKey()));
                }
            }
            for (RvtQp q : qps) {
                assertThat(refsOf(q)).as("baseline of QP %d; seed=%d", q.qpNum(), seed).isZero();
            }
            assertThat(table.isEmpty()).as("seed=%d", seed).isTrue();
            assertThat(groupsCounted()).as("seed=%d", seed).isZero();
        }
    }

    private static void check(Runnable op, Errno expected, String ctx) {
        if (expected == null) {
            op.run();
        } else {
            assertThatThrownBy(op::run).as(ctx).satisfies(errno(expected));
        }
    }

    // ------------------------------------------------------------------ detach waits for finders

    /** Spins (with a deadline, no sleeping) until {@code cond} holds. */
    private static void awaitTrue(BooleanSupplier cond, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.yield();
        }
    }

    @Test
    void shouldCompleteDetachOnlyAfterFinderReleasesGroup() throws Exception {
        RvtQp qp = qp(10);
        table.attach(qp, G1, L1);
        RvtMcast held = table.find(G1, L1);
        DriverQp[] snapshot = held.qps();
        CountDownLatch detached = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> detach = pool.submit(() -> {
                table.detach(qp, G1, L1);
                detached.countDown();
            });
            // The unlink happens before the wait; once it is visible, detach is at (or on its way to) the wait
            // and cannot pass it while we hold the group.
            awaitTrue(() -> held.qps().length == 0, "detach to unlink the QP");
            assertThat(table.isEmpty()).isTrue();
            assertThat(detached.getCount()).as("detach returned while a finder held the group").isEqualTo(1);
            verify(qp, never()).release();
            assertThat(snapshot).as("the finder's snapshot is unchanged").containsExactly(qp);
            assertThat(groupsCounted()).as("uncounted only after the wait").isEqualTo(1);

            held.release();

            assertThat(detached.await(30, TimeUnit.SECONDS)).as("detach finished after release").isTrue();
            detach.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        verify(qp).release();
        assertThat(refsOf(qp)).isZero();
        assertThat(groupsCounted()).isZero();
        assertThat(held.refCount()).isZero();
    }

    @Test
    void shouldWaitForEveryFinderWhenSeveralHoldTheGroup() throws Exception {
        RvtQp a = qp(10);
        RvtQp b = qp(11);
        table.attach(a, G1, L1);
        table.attach(b, G1, L1);
        RvtMcast f1 = table.find(G1, L1);
        RvtMcast f2 = table.find(G1, L1);
        CountDownLatch detached = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> detach = pool.submit(() -> {
                table.detach(a, G1, L1);
                detached.countDown();
            });
            awaitTrue(() -> f1.qps().length == 1, "detach to unlink QP 10");

            f1.release();
            assertThat(f1.refCount()).isEqualTo(2);
            assertThat(detached.getCount()).as("one finder still holds the group").isEqualTo(1);
            verify(a, never()).release();

            f2.release();
            assertThat(detached.await(30, TimeUnit.SECONDS)).isTrue();
            detach.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(refsOf(a)).isZero();
        assertThat(refsOf(b)).isEqualTo(1);
        assertThat(table.groupCount()).as("group still has QP 11").isEqualTo(1);
        assertThat(groupsCounted()).isEqualTo(1);
    }

    @Test
    void shouldFailWithEnodevWhenDeviceWasRemoved() {
        RvtQp qp = qp(10);
        dev.unregister();

        assertThatThrownBy(() -> table.attach(qp, G1, L1)).satisfies(errno(Errno.ENODEV));
        // Detach still works after removal (teardown); this QP was never attached.
        assertThatThrownBy(() -> table.detach(qp, G1, L1)).satisfies(errno(Errno.EINVAL));
        verify(qp, never()).retain();
    }
}
