package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AhAttr;
import io.rvt.api.Errno;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpType;
import io.rvt.api.SrqInitAttr;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.DriverAh;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverQp;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.TestDriver;
import io.rvt.core.cq.RvtCq;
import io.rvt.core.mr.RvtPd;
import io.rvt.core.srq.RvtSrq;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Every failure path of every create verb leaves every count as it was: device counters, the PD's uses, the CQs' and
 * the SRQ's users and the driver's private state (each {@code qp_priv_alloc} matched by a {@code qp_priv_free}). A CQ a failed createQp named can be destroyed.
 */
class CreateFailureTest {
    /** A driver whose QP callbacks fail on demand and that counts its private states. */
    static final class FailingDriver extends TestDriver {
        final AtomicInteger privLive = new AtomicInteger();
        volatile int allocQpnResult = USE_CORE_QPN_ALLOCATOR;
        volatile int privInitResult;
        volatile RuntimeException privAllocThrows;
        volatile RuntimeException newAhThrows;

        FailingDriver() {
            params(LoopbackTestDriver.loopbackParams(0).build());
        }

        @Override
        public Object qpPrivAlloc(DriverDevice rdi, DriverQp qp) {
            if (privAllocThrows != null) {
                throw privAllocThrows;
            }
            privLive.incrementAndGet();
            return super.qpPrivAlloc(rdi, qp);
        }

        @Override
        public void qpPrivFree(DriverDevice rdi, DriverQp qp) {
            privLive.decrementAndGet();
            super.qpPrivFree(rdi, qp);
        }

        @Override
        public int allocQpn(DriverDevice rdi, QpType type, int portNum) {
            return allocQpnResult;
        }

        @Override
        public int qpPrivInit(DriverDevice rdi, DriverQp qp, QpInitAttr init) {
            return privInitResult;
        }

        @Override
        public void notifyNewAh(DriverDevice rdi, AhAttr attr, DriverAh ah) {
            if (newAhThrows != null) {
                throw newAhThrows;
            }
        }
    }

    private final FailingDriver driver = new FailingDriver();
    private final QpEnv env = new QpEnv(driver);

    /** @return every count a create can touch */
    private String counts(RvtPd pd, RvtSrq srq) {
        return Arrays.toString(env.counters()) + " pd " + pd.useCount() + " scq " + env.scq.userCount() + " rcq "
                + env.rcq.userCount() + " srq " + (srq == null ? "-" : srq.userCount()) + " priv "
                + driver.privLive.get();
    }

    private void assertUnchanged(String what, Consumer<QpEnv> create, Errno errno, RvtPd pd, RvtSrq srq) {
        String before = counts(pd, srq);
        assertThatThrownBy(() -> create.accept(env)).as(what).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).as(e.getMessage()).isEqualTo(errno));
        assertThat(counts(pd, srq)).as(what).isEqualTo(before);
    }

    @Test
    void shouldLeaveEveryCountAsItWasWhenCreateQpFails() {
        RvtSrq srq = env.srq(8);
        RvtPd gone = (RvtPd) env.dev.allocPd();
        gone.deallocPd();
        assertUnchanged("a deallocated PD",
                e -> gone.createQp(e.init(QpType.RC, 4, 4, 1)), Errno.EINVAL, env.pd, srq);

        RvtCq deadCq = (RvtCq) env.dev.createCq(4, 0, null, null);
        deadCq.destroyCq();
        assertUnchanged("a destroyed send CQ",
                e -> e.create(e.init(QpType.RC, 4, 4, 1).sendCq(deadCq)), Errno.EINVAL, env.pd, srq);
        assertUnchanged("a destroyed receive CQ",
                e -> e.create(e.init(QpType.RC, 4, 4, 1).recvCq(deadCq)), Errno.EINVAL, env.pd, srq);
        RvtSrq deadSrq = env.srq(4);
        deadSrq.destroySrq();
        assertUnchanged("a destroyed SRQ",
                e -> e.create(e.init(QpType.RC, 4, 0, 1).srq(deadSrq)), Errno.EINVAL, env.pd, srq);

        driver.privInitResult = -7; // -E2BIG: an errno rvt has no constant for
        assertUnchanged("qp_priv_init fails", e -> e.rc(), Errno.OTHER, env.pd, srq);
        driver.privInitResult = 0;
        driver.allocQpnResult = -28; // -ENOSPC
        assertUnchanged("alloc_qpn fails", e -> e.rc(), Errno.OTHER, env.pd, srq);
        driver.allocQpnResult = TestDriver.USE_CORE_QPN_ALLOCATOR;
        driver.privAllocThrows = new IllegalStateException("driver out of contexts");
        String before = counts(env.pd, srq);
        assertThatThrownBy(env::rc).isInstanceOf(IllegalStateException.class);
        assertThat(counts(env.pd, srq)).as("qp_priv_alloc throws").isEqualTo(before);
        driver.privAllocThrows = null;

        RvtQp qp = env.create(env.init(QpType.RC, 4, 0, 1).srq(srq));
        assertThat(srq.userCount()).isEqualTo(1);
        qp.destroyQp();
        env.scq.destroyCq(); // nothing counted it
        env.rcq.destroyCq();
    }

    @Test
    void shouldLeaveEveryCountAsItWasWhenTheDeviceLimitIsReached() {
        TestDriver small = new TestDriver().params(LoopbackTestDriver.loopbackParams(0)
                .props(TestDriver.defaultProps().maxQp(1).maxCq(2).maxSrq(1).maxAh(1).maxPd(1).build()).build());
        QpEnv e2 = new QpEnv(small);
        e2.rc();
        e2.srq(4);
        AhAttr ah = new AhAttr().dlid(e2.lid()).portNum(1);
        e2.pd.createAh(ah);
        String before = Arrays.toString(e2.counters()) + " pd " + e2.pd.useCount() + " scq " + e2.scq.userCount();
        assertThatThrownBy(e2::rc).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
        assertThatThrownBy(() -> e2.dev.createCq(4, 0, null, null)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
        assertThatThrownBy(() -> e2.srq(4)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
        assertThatThrownBy(() -> e2.pd.createAh(ah)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
        assertThatThrownBy(e2.dev::allocPd).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
        assertThat(Arrays.toString(e2.counters()) + " pd " + e2.pd.useCount() + " scq " + e2.scq.userCount())
                .isEqualTo(before);
    }

    @Test
    void shouldLeaveEveryCountAsItWasWhenTheOtherCreateVerbsFail() {
        RvtPd gone = (RvtPd) env.dev.allocPd();
        gone.deallocPd();
        AhAttr ah = new AhAttr().dlid(env.lid()).portNum(1);
        assertUnchanged("createSrq on a deallocated PD",
                e -> gone.createSrq(new SrqInitAttr().maxWr(4).maxSge(1)), Errno.EINVAL, env.pd, null);
        assertUnchanged("createAh on a deallocated PD", e -> gone.createAh(ah), Errno.EINVAL, env.pd, null);
        assertUnchanged("regMr on a deallocated PD", e -> gone.regMr(ByteBuffer.allocate(64), 0), Errno.EINVAL,
                env.pd, null);
        assertUnchanged("allocMr on a deallocated PD", e -> gone.allocMr(1), Errno.EINVAL, env.pd, null);
        assertUnchanged("createCq with cqe 0", e -> e.dev.createCq(0, 0, null, null), Errno.EINVAL, env.pd, null);
        assertUnchanged("createSrq with maxWr 0", e -> e.pd.createSrq(new SrqInitAttr().maxWr(0).maxSge(1)),
                Errno.EINVAL, env.pd, null);
        driver.newAhThrows = new IllegalStateException("notify_new_ah failed");
        String before = counts(env.pd, null);
        assertThatThrownBy(() -> env.pd.createAh(ah)).isInstanceOf(IllegalStateException.class);
        assertThat(counts(env.pd, null)).as("notify_new_ah throws").isEqualTo(before);
    }
}
