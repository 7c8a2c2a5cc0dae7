package io.rvt.core.srq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventType;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SrqAttr;
import io.rvt.api.SrqAttrMask;
import io.rvt.api.SrqInitAttr;
import io.rvt.api.VerbsException;
import io.rvt.api.WorkRequestException;
import io.rvt.core.RvtDevice;
import io.rvt.core.TestDriver;
import io.rvt.core.mr.RvtPd;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RvtSrqTest {
    private static final int MAX_SRQ = 2;
    private static final int MAX_SRQ_WR = 16;
    private static final int MAX_SRQ_SGE = 4;

    private RvtDevice dev;
    private RvtPd pd;
    private final List<AsyncEvent> srqEvents = new CopyOnWriteArrayList<>();
    private final List<AsyncEvent> deviceEvents = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() {
        dev = new TestDriver().props(TestDriver.defaultProps().maxSrq(MAX_SRQ).maxSrqWr(MAX_SRQ_WR)
                .maxSrqSge(MAX_SRQ_SGE).build()).register();
        dev.setAsyncEventHandler(deviceEvents::add);
        pd = mock(RvtPd.class);
        when(pd.dev()).thenReturn(dev);
    }

    @AfterEach
    void tearDown() {
        dev.unregister();
    }

    private SrqInitAttr init(int maxWr, int maxSge) {
        return new SrqInitAttr().maxWr(maxWr).maxSge(maxSge).eventHandler(srqEvents::add);
    }

    private static RecvWorkRequest wr(long id, int numSge) {
        RecvWorkRequest w = new RecvWorkRequest(MAX_SRQ_SGE + 1).wrId(id).numSge(numSge);
        for (int i = 0; i < numSge; i++) {
            w.sge(i).set(id * 1000 + i, 64 + i, 0x100 + i);
        }
        return w;
    }

    private static RecvWorkRequest chain(RecvWorkRequest... wrs) {
        for (int i = 0; i + 1 < wrs.length; i++) {
            wrs[i].next(wrs[i + 1]);
        }
        return wrs[0];
    }

    /** What RvtQp.getRwqe does with the ring and the limit: take under the consumer lock, raise outside. */
    private static long consume(RvtSrq srq) {
        RvtRq rq = srq.rq();
        RvtRwqe dst = new RvtRwqe(rq.maxSge());
        boolean raise;
        rq.consumerLock().lock();
        try {
            if (!rq.take(dst)) {
                return -1;
            }
            raise = srq.checkLimitLocked();
        } finally {
            rq.consumerLock().unlock();
        }
        if (raise) {
            srq.raiseLimitEvent();
        }
        return dst.wrId();
    }

    private static SrqAttr query(RvtSrq srq) {
        return srq.querySrq(new SrqAttr());
    }

    private static Consumer<Object> errno(Errno e) {
        return t -> assertThat(t).asInstanceOf(type(VerbsException.class))
                .extracting(VerbsException::errno).isEqualTo(e);
    }

    // ------------------------------------------------------------------ create

    static Stream<Arguments> badInits() {
        return Stream.of(
                Arguments.of("srqType 1", new SrqInitAttr().maxWr(4).maxSge(1).srqType(1), Errno.EOPNOTSUPP,
                        "srqType 1"),
                Arguments.of("maxSge 0", new SrqInitAttr().maxWr(4).maxSge(0), Errno.EINVAL, "maxSge 0"),
                Arguments.of("maxSge over max_srq_sge", new SrqInitAttr().maxWr(4).maxSge(MAX_SRQ_SGE + 1),
                        Errno.EINVAL, "maxSge " + (MAX_SRQ_SGE + 1)),
                Arguments.of("maxWr 0", new SrqInitAttr().maxWr(0).maxSge(1), Errno.EINVAL, "maxWr 0"),
                Arguments.of("maxWr over max_srq_wr", new SrqInitAttr().maxWr(MAX_SRQ_WR + 1).maxSge(1),
                        Errno.EINVAL, "maxWr " + (MAX_SRQ_WR + 1)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInits")
    void shouldRefuseAndCountNothingWhenInitAttributeIsInvalid(String name, SrqInitAttr bad, Errno errno,
            String mentions) {
        assertThatThrownBy(() -> RvtSrq.create(dev, pd, bad)).isInstanceOf(VerbsException.class)
                .satisfies(errno(errno)).hasMessageContaining(mentions);

        assertThat(dev.deviceCounter(DeviceCounter.SRQS_ALLOCATED)).isZero();
        verify(pd, never()).retainUse();
    }

    @Test
    void shouldRefuseWithEnomemWhenMaxSrqAreAllocated() {
        for (int i = 0; i < MAX_SRQ; i++) {
            RvtSrq.create(dev, pd, init(4, 1));
        }

        assertThatThrownBy(() -> RvtSrq.create(dev, pd, init(4, 1))).satisfies(errno(Errno.ENOMEM))
                .hasMessageContaining("max_srq=" + MAX_SRQ);
        assertThat(dev.deviceCounter(DeviceCounter.SRQS_ALLOCATED)).isEqualTo(MAX_SRQ);
        verify(pd, times(MAX_SRQ)).retainUse();
    }

    @Test
    void shouldLeaveCounterUnchangedWhenPdWasDeallocated() {
        doThrow(new VerbsException(Errno.EINVAL, "protection domain was deallocated")).when(pd).retainUse();

        assertThatThrownBy(() -> RvtSrq.create(dev, pd, init(4, 1))).satisfies(errno(Errno.EINVAL))
                .hasMessageContaining("deallocated");
        assertThat(dev.deviceCounter(DeviceCounter.SRQS_ALLOCATED)).isZero();
    }

    @Test
    void shouldReportAttributesAndRefuseALimitModifySrqWouldRefuseWhenCreated() {
        assertThatThrownBy(() -> RvtSrq.create(dev, pd, init(MAX_SRQ_WR, MAX_SRQ_SGE).srqLimit(MAX_SRQ_WR + 1)))
                .satisfies(errno(Errno.EINVAL)).hasMessageContaining("srqLimit " + (MAX_SRQ_WR + 1));
        assertThat(dev.deviceCounter(DeviceCounter.SRQS_ALLOCATED)).isZero();
        RvtSrq srq = RvtSrq.create(dev, pd, init(MAX_SRQ_WR, MAX_SRQ_SGE).srqLimit(1000 % MAX_SRQ_WR));

        SrqAttr a = query(srq);
        assertThat(a.maxWr()).isEqualTo(MAX_SRQ_WR);
        assertThat(a.maxSge()).isEqualTo(MAX_SRQ_SGE);
        assertThat(a.srqLimit()).isEqualTo(1000 % MAX_SRQ_WR);
        assertThat(srq.limit()).isEqualTo(1000 % MAX_SRQ_WR);
        assertThat(srq.rq().size()).isEqualTo(MAX_SRQ_WR + 1);
        assertThat(srq.device()).isSameAs(dev);
        assertThat(srq.pd()).isSameAs(pd);
        assertThat(dev.deviceCounter(DeviceCounter.SRQS_ALLOCATED)).isEqualTo(1);
        verify(pd).retainUse();
    }

    // ------------------------------------------------------------------ post

    @Test
    void shouldFailAtTheFirstRequestThatDoesNotFitWhenChainOverflows() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(4, 2));

        assertThatThrownBy(() -> srq.postSrqRecv(chain(wr(0, 1), wr(1, 2), wr(2, 0), wr(3, 1), wr(4, 1), wr(5, 1))))
                .isInstanceOf(WorkRequestException.class).satisfies(errno(Errno.ENOMEM))
                .extracting(t -> ((WorkRequestException) t).badIndex()).isEqualTo(4);

        for (long i = 0; i < 4; i++) {
            assertThat(consume(srq)).isEqualTo(i);
        }
        assertThat(consume(srq)).isEqualTo(-1);
    }

    @Test
    void shouldFailWithEinvalAtTheRequestWithTooManySgesWhenChainIsPosted() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(8, 2));

        assertThatThrownBy(() -> srq.postSrqRecv(chain(wr(0, 2), wr(1, 1), wr(2, 3), wr(3, 1))))
                .isInstanceOf(WorkRequestException.class).satisfies(errno(Errno.EINVAL))
                .hasMessageContaining("numSge 3").extracting(t -> ((WorkRequestException) t).badIndex())
                .isEqualTo(2);

        assertThat(consume(srq)).isEqualTo(0);
        assertThat(consume(srq)).isEqualTo(1);
        assertThat(consume(srq)).isEqualTo(-1);
    }

    @Test
    void shouldCopySgesIntoTheRingWhenPosted() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(4, 3));
        srq.postSrqRecv(wr(7, 3));

        RvtRwqe dst = new RvtRwqe(3);
        srq.rq().consumerLock().lock();
        try {
            assertThat(srq.rq().take(dst)).isTrue();
        } finally {
            srq.rq().consumerLock().unlock();
        }
        assertThat(dst.numSge()).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(dst.addr(i)).isEqualTo(7000 + i);
            assertThat(dst.length(i)).isEqualTo(64 + i);
            assertThat(dst.lkey(i)).isEqualTo(0x100 + i);
        }
    }

    // ------------------------------------------------------------------ modify

    @Test
    void shouldRefuseResizeWhenMaxWrExceedsDeviceLimit() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(4, 1));

        assertThatThrownBy(() -> srq.modifySrq(new SrqAttr().maxWr(MAX_SRQ_WR + 1), SrqAttrMask.MAX_WR.bit()))
                .satisfies(errno(Errno.EINVAL)).hasMessageContaining("maxWr " + (MAX_SRQ_WR + 1));
        assertThat(query(srq).maxWr()).isEqualTo(4);
    }

    @Test
    void shouldRefuseResizeWhenArmedLimitExceedsNewMaxWr() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(8, 1).srqLimit(5));

        assertThatThrownBy(() -> srq.modifySrq(new SrqAttr().maxWr(4), SrqAttrMask.MAX_WR.bit()))
                .satisfies(errno(Errno.EINVAL)).hasMessageContaining("5");
        assertThat(query(srq).maxWr()).isEqualTo(8);

        srq.modifySrq(new SrqAttr().maxWr(5), SrqAttrMask.MAX_WR.bit()); // limit == maxWr is allowed
        assertThat(query(srq).maxWr()).isEqualTo(5);
        assertThat(srq.limit()).isEqualTo(5);
    }

    @Test
    void shouldCheckTheNewLimitWhenResizeAndLimitAreModifiedTogether() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(8, 1).srqLimit(7));
        int both = SrqAttrMask.mask(SrqAttrMask.MAX_WR, SrqAttrMask.LIMIT);

        assertThatThrownBy(() -> srq.modifySrq(new SrqAttr().maxWr(4).srqLimit(5), both))
                .satisfies(errno(Errno.EINVAL));
        assertThat(query(srq).maxWr()).isEqualTo(8);
        assertThat(srq.limit()).isEqualTo(7);

        srq.modifySrq(new SrqAttr().maxWr(4).srqLimit(2), both); // the armed 7 no longer matters
        assertThat(query(srq).maxWr()).isEqualTo(4);
        assertThat(srq.limit()).isEqualTo(2);
    }

    @Test
    void shouldRefuseResizeAndKeepEntriesWhenNewSizeIsNotAboveQueuedCount() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(8, 1));
        for (int i = 0; i < 5; i++) {
            srq.postSrqRecv(wr(i, 1));
        }

        assertThatThrownBy(() -> srq.modifySrq(new SrqAttr().maxWr(4), SrqAttrMask.MAX_WR.bit()))
                .satisfies(errno(Errno.EINVAL)).hasMessageContaining("5 queued");
        assertThat(query(srq).maxWr()).isEqualTo(8);

        srq.modifySrq(new SrqAttr().maxWr(5), SrqAttrMask.MAX_WR.bit()); // exactly full
        assertThatThrownBy(() -> srq.postSrqRecv(wr(99, 1))).satisfies(errno(Errno.ENOMEM));
        for (long i = 0; i < 5; i++) {
            assertThat(consume(srq)).isEqualTo(i);
        }
    }

    @Test
    void shouldPreserveOrderWhenResizedLarger() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(3, 1));
        srq.postSrqRecv(chain(wr(0, 1), wr(1, 1)));
        consume(srq);
        srq.postSrqRecv(chain(wr(2, 1), wr(3, 1))); // wraps in the 4-slot ring

        srq.modifySrq(new SrqAttr().maxWr(MAX_SRQ_WR), SrqAttrMask.MAX_WR.bit());

        srq.postSrqRecv(wr(4, 1));
        for (long i = 1; i <= 4; i++) {
            assertThat(consume(srq)).isEqualTo(i);
        }
        assertThat(query(srq).maxWr()).isEqualTo(MAX_SRQ_WR);
    }

    @Test
    void shouldArmOnlyLimitsBelowSizeWhenOnlyLimitIsModified() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(6, 1));
        int limit = SrqAttrMask.LIMIT.bit();

        assertThatThrownBy(() -> srq.modifySrq(new SrqAttr().srqLimit(7), limit)).satisfies(errno(Errno.EINVAL))
                .hasMessageContaining("srqLimit 7");
        assertThat(srq.limit()).isZero();

        srq.modifySrq(new SrqAttr().srqLimit(6), limit);
        assertThat(query(srq).srqLimit()).isEqualTo(6);
        srq.modifySrq(new SrqAttr().srqLimit(0), limit);
        assertThat(query(srq).srqLimit()).isZero();
        assertThat(query(srq).maxWr()).isEqualTo(6);
    }

    @Test
    void shouldRefuseUnknownMaskBitsAndIgnoreEmptyMask() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(6, 1).srqLimit(2));

        assertThatThrownBy(() -> srq.modifySrq(new SrqAttr().maxWr(2), 0x4 | SrqAttrMask.MAX_WR.bit()))
                .satisfies(errno(Errno.EINVAL)).hasMessageContaining("0x4");
        srq.modifySrq(new SrqAttr().maxWr(1).srqLimit(0), 0);

        assertThat(query(srq).maxWr()).isEqualTo(6);
        assertThat(srq.limit()).isEqualTo(2);
    }

    @Test
    void shouldAcceptMaxWrZeroAndThenRefuseEveryPostWhenEmptySrqIsResized() {
        // quirk 34a, reproduced: createSrq refuses maxWr 0, modifySrq accepts it on an empty SRQ
        RvtSrq srq = RvtSrq.create(dev, pd, init(4, 1));

        srq.modifySrq(new SrqAttr().maxWr(0), SrqAttrMask.MAX_WR.bit());

        assertThat(query(srq).maxWr()).isZero();
        assertThat(srq.rq().size()).isEqualTo(1);
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> srq.postSrqRecv(wr(1, 1))).isInstanceOf(WorkRequestException.class)
                    .satisfies(errno(Errno.ENOMEM)).extracting(t -> ((WorkRequestException) t).badIndex())
                    .isEqualTo(0);
        }
        srq.modifySrq(new SrqAttr().maxWr(2), SrqAttrMask.MAX_WR.bit()); // and it can grow again
        srq.postSrqRecv(wr(1, 1));
        assertThat(consume(srq)).isEqualTo(1);
    }

    @Test
    void shouldRefuseMaxWrZeroWhenEntriesAreQueuedOrLimitIsArmed() {
        RvtSrq queued = RvtSrq.create(dev, pd, init(4, 1));
        queued.postSrqRecv(wr(1, 1));
        assertThatThrownBy(() -> queued.modifySrq(new SrqAttr().maxWr(0), SrqAttrMask.MAX_WR.bit()))
                .satisfies(errno(Errno.EINVAL));

        RvtSrq armed = RvtSrq.create(dev, pd, init(4, 1).srqLimit(1));
        assertThatThrownBy(() -> armed.modifySrq(new SrqAttr().maxWr(0), SrqAttrMask.MAX_WR.bit()))
                .satisfies(errno(Errno.EINVAL));
        assertThat(query(armed).maxWr()).isEqualTo(4);
    }

    // ------------------------------------------------------------------ limit event

    @Test
    void shouldRaiseLimitEventOnceWhenCountDropsBelowLimit() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(16, 1).srqLimit(3));
        for (int i = 0; i < 6; i++) {
            srq.postSrqRecv(wr(i, 1));
        }

        consume(srq); // 5 left
        consume(srq); // 4
        consume(srq); // 3: not below 3
        assertThat(srqEvents).isEmpty();
        consume(srq); // 2: below
        assertThat(srqEvents).hasSize(1);
        assertThat(srqEvents.get(0).type()).isEqualTo(AsyncEventType.SRQ_LIMIT_REACHED);
        assertThat(srqEvents.get(0).srq()).isSameAs(srq);
        assertThat(srq.limit()).isZero();
        consume(srq); // 1
        consume(srq); // 0
        assertThat(srqEvents).hasSize(1);
        assertThat(deviceEvents).isEmpty();
    }

    @Test
    void shouldRaiseLimitEventAgainWhenRearmedWithModify() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(16, 1).srqLimit(2));
        for (int i = 0; i < 4; i++) {
            srq.postSrqRecv(wr(i, 1));
        }
        consume(srq);
        consume(srq);
        consume(srq); // 1 < 2
        assertThat(srqEvents).hasSize(1);

        srq.modifySrq(new SrqAttr().srqLimit(2), SrqAttrMask.LIMIT.bit());
        srq.postSrqRecv(wr(10, 1)); // 2 queued
        consume(srq); // 1 < 2 again
        assertThat(srqEvents).hasSize(2);
        consume(srq);
        assertThat(srqEvents).hasSize(2);
    }

    @Test
    void shouldNotRaiseLimitEventWhenExactCountIsNotBelowLimit() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(16, 1).srqLimit(3));
        srq.postSrqRecv(chain(wr(0, 1), wr(1, 1), wr(2, 1)));
        RvtRq rq = srq.rq();
        RvtRwqe dst = new RvtRwqe(1);

        rq.consumerLock().lock();
        try {
            assertThat(rq.take(dst)).isTrue(); // approximate count 2, below the limit
            srq.postSrqRecv(chain(wr(3, 1), wr(4, 1))); // posting does not need the consumer lock
            assertThat(rq.approxCount()).isEqualTo(2);
            assertThat(srq.checkLimitLocked()).as("exact count 4 is not below 3").isFalse();
        } finally {
            rq.consumerLock().unlock();
        }
        assertThat(srq.limit()).isEqualTo(3);
        assertThat(srqEvents).isEmpty();
    }

    @Test
    void shouldNeverRaiseLimitEventWhenLimitIsZero() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(4, 1));
        srq.postSrqRecv(chain(wr(0, 1), wr(1, 1)));
        consume(srq);
        consume(srq);
        assertThat(srqEvents).isEmpty();
        assertThat(deviceEvents).isEmpty();
    }

    @Test
    void shouldDeliverLimitEventToDeviceHandlerWhenSrqHasNone() {
        RvtSrq srq = RvtSrq.create(dev, pd, new SrqInitAttr().maxWr(4).maxSge(1).srqLimit(1));
        srq.postSrqRecv(wr(0, 1));

        consume(srq);

        assertThat(deviceEvents).hasSize(1);
        assertThat(deviceEvents.get(0).type()).isEqualTo(AsyncEventType.SRQ_LIMIT_REACHED);
        assertThat(deviceEvents.get(0).srq()).isSameAs(srq);
        assertThat(srq.limit()).isZero();
    }

    @Test
    void shouldRaiseLimitEventOnceWhenSequencesAreRandom() {
        SplittableRandom seeds = new SplittableRandom(0x1_1A17L);
        for (int run = 0; run < 200; run++) {
            long seed = seeds.nextLong();
            SplittableRandom rnd = new SplittableRandom(seed);
            srqEvents.clear();
            int limit = 1 + rnd.nextInt(MAX_SRQ_WR);
            RvtSrq srq = RvtSrq.create(dev, pd, init(MAX_SRQ_WR, 1).srqLimit(limit));
            int queued = 0;
            int expectedEvents = 0;
            boolean armed = true;
            for (int step = 0; step < 200; step++) {
                if (rnd.nextBoolean() && queued < MAX_SRQ_WR) {
                    srq.postSrqRecv(wr(step, 1));
                    queued++;
                } else if (queued > 0) {
                    consume(srq);
                    queued--;
                    if (armed && queued < limit) {
                        armed = false;
                        expectedEvents++;
                    }
                }
                if (rnd.nextInt(20) == 0) {
                    srq.modifySrq(new SrqAttr().srqLimit(limit), SrqAttrMask.LIMIT.bit());
                    armed = true;
                }
                assertThat(srqEvents).as("seed=%d limit=%d step=%d", seed, limit, step).hasSize(expectedEvents);
            }
            while (queued > 0) {
                consume(srq);
                queued--;
            }
            srq.destroySrq();
        }
    }

    // ------------------------------------------------------------------ destroy and device removal

    @Test
    void shouldRefuseDestroyWithEbusyWhileAQpUsesIt() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(4, 1));
        srq.addUser();

        assertThatThrownBy(srq::destroySrq).satisfies(errno(Errno.EBUSY)).hasMessageContaining("1 QP");
        assertThat(dev.deviceCounter(DeviceCounter.SRQS_ALLOCATED)).isEqualTo(1);
        verify(pd, never()).releaseUse();

        srq.removeUser();
        srq.destroySrq();
        assertThat(dev.deviceCounter(DeviceCounter.SRQS_ALLOCATED)).isZero();
        verify(pd).releaseUse();
    }

    @Test
    void shouldRefuseEveryVerbWhenAlreadyDestroyed() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(4, 1));
        srq.destroySrq();

        assertThatThrownBy(srq::destroySrq).satisfies(errno(Errno.EINVAL));
        assertThatThrownBy(() -> srq.postSrqRecv(wr(1, 1))).satisfies(errno(Errno.EINVAL));
        assertThatThrownBy(() -> srq.modifySrq(new SrqAttr().srqLimit(1), SrqAttrMask.LIMIT.bit()))
                .satisfies(errno(Errno.EINVAL));
        assertThatThrownBy(() -> query(srq)).satisfies(errno(Errno.EINVAL));
        assertThatThrownBy(srq::addUser).satisfies(errno(Errno.EINVAL));
        assertThat(dev.deviceCounter(DeviceCounter.SRQS_ALLOCATED)).isZero();
        verify(pd, times(1)).releaseUse();
    }

    @Test
    void shouldRefuseRemoveUserWhenNoUserIsCounted() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(4, 1));
        assertThatThrownBy(srq::removeUser).isInstanceOf(IllegalStateException.class);
        assertThat(srq.userCount()).isZero();
    }

    @Test
    void shouldFailWithEnodevWhenDeviceWasRemoved() {
        RvtSrq srq = RvtSrq.create(dev, pd, init(4, 1));
        dev.unregister();

        assertThatThrownBy(() -> srq.postSrqRecv(wr(1, 1))).satisfies(errno(Errno.ENODEV));
        assertThatThrownBy(() -> srq.modifySrq(new SrqAttr().srqLimit(1), SrqAttrMask.LIMIT.bit()))
                .satisfies(errno(Errno.ENODEV));
        assertThatThrownBy(() -> query(srq)).satisfies(errno(Errno.ENODEV));
        assertThatThrownBy(() -> RvtSrq.create(dev, pd, init(4, 1))).satisfies(errno(Errno.ENODEV));
        srq.destroySrq(); // teardown still works after removal
    }

    // ------------------------------------------------------------------ resize under concurrent posting

    @Test
    void shouldLoseNothingWhenResizedWhileProducerAndConsumerRun() throws Exception {
        final int total = 20_000;
        RvtSrq srq = RvtSrq.create(dev, pd, init(4, 1));
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> producer = pool.submit(() -> {
                RecvWorkRequest w = new RecvWorkRequest(1).numSge(1);
                for (long id = 0; id < total; ) {
                    w.wrId(id);
                    w.sge(0).set(id, 1, 1);
                    try {
                        srq.postSrqRecv(w);
                        id++;
                    } catch (WorkRequestException e) {
                        assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
                        Thread.yield();
                    }
                }
            });
            Future<?> consumer = pool.submit(() -> {
                for (long id = 0; id < total; ) {
                    long got = consume(srq);
                    if (got >= 0) {
                        assertThat(got).as("entry order under resize").isEqualTo(id);
                        id++;
                    } else {
                        Thread.yield();
                    }
                }
                done.set(true);
            });
            SplittableRandom rnd = new SplittableRandom(0xBEEFL);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int resizes = 0;
            while (!done.get() && System.nanoTime() < deadline) {
                try {
                    srq.modifySrq(new SrqAttr().maxWr(1 + rnd.nextInt(MAX_SRQ_WR)), SrqAttrMask.MAX_WR.bit());
                    resizes++;
                } catch (VerbsException e) {
                    assertThat(e.errno()).as("seed=0xBEEF").isEqualTo(Errno.EINVAL); // too many queued
                }
                Thread.yield();
            }
            producer.get(60, TimeUnit.SECONDS);
            consumer.get(60, TimeUnit.SECONDS);
            assertThat(resizes).isPositive();
        } finally {
            pool.shutdownNow();
        }
    }
}
