package io.rvt.api.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

import io.rvt.api.AhAttr;
import io.rvt.api.Gid;
import io.rvt.api.QpAttr;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/** The default methods of {@link RvtDriver} do what rdmavt does for a NULL callback. */
class RvtDriverDefaultsTest {

    private final RvtDriver driver = new MinimalDriver();
    private final DriverDevice rdi = mock(DriverDevice.class);
    private final DriverQp qp = mock(DriverQp.class);

    @Test
    void shouldSucceedWithoutSideEffectsWhenOptionalQpCallbacksAreNotProvided() {
        QpAttr attr = new QpAttr();
        QpPrivate priv = new QpPrivate() {
            @Override
            public Object qpPrivAlloc(DriverDevice r, DriverQp q) {
                return null;
            }

            @Override
            public void qpPrivFree(DriverDevice r, DriverQp q) {
            }

            @Override
            public void notifyQpReset(DriverQp q) {
            }

            @Override
            public void notifyRestartRc(DriverQp q, int psn, int wait) {
            }
        };
        assertThat(priv.qpPrivInit(rdi, qp, new QpInitAttr())).isZero();
        assertThat(driver.checkModifyQp(qp, attr, -1)).isZero();
        driver.modifyQp(qp, attr, -1);
        assertThat(driver.allocQpn(rdi, QpType.RC, 1)).isEqualTo(RvtDriver.USE_CORE_QPN_ALLOCATOR);
        assertThat(driver.allocQpn(rdi, QpType.SMI, 1)).isEqualTo(Integer.MIN_VALUE);
        assertThat(driver.compVectCpuLookup(rdi, 5)).isZero();
        driver.notifyCreateMadAgent(rdi, 0);
        driver.notifyFreeMadAgent(rdi, 0);
        driver.registered(rdi);
        driver.unregistering(rdi);
        verifyNoInteractions(rdi, qp);
    }

    @Test
    void shouldReportNoWorkWhenProgressWhileWaitingIsNotProvided() {
        assertThat(driver.progressWhileWaiting()).isFalse();
        assertThat(driver.progress(RvtDriver.POLL_BUDGET)).isZero();
    }

    @Test
    void shouldAcceptAndLeaveAhUntouchedWhenAhCallbacksAreNotProvided() {
        AhAttr attr = new AhAttr().dlid(5).sl(3).dgid(Gid.of(1, 2));
        AhAttr before = new AhAttr().copyFrom(attr);
        DriverAh ah = mock(DriverAh.class);
        assertThat(driver.checkAh(rdi, attr)).isZero();
        driver.notifyNewAh(rdi, attr, ah);
        verifyNoInteractions(ah, rdi);
        assertThat(attr.dlid()).isEqualTo(before.dlid());
        assertThat(attr.sl()).isEqualTo(before.sl());
        assertThat(attr.dgid()).isEqualTo(before.dgid());
    }

    @Test
    void shouldLetCoreDecideWhenDetectionAndServicesAreNotProvided() {
        assertThat(driver.unsupportedVerbs()).isEmpty();
        assertThat(driver.sendEngine()).isNull();
        assertThat(driver.mtuConversion()).isNull();
        assertThat(driver.portQuery()).isNull();
        assertThat(driver.portModify()).isNull();
        assertThat(driver.gidLookup()).isNull();
        assertThat(driver.qpPrivate()).isNull();
        assertThat(driver.qpQuiesce()).isNull();
        assertThat(driver.timerService()).isNull();
        assertThat(driver.completionExecutor(0)).isNull();
        assertThat(driver.completionExecutor(3)).isNull();
    }

    @Test
    void shouldGiveDefaultPkeyThenZerosWhenInitialPkeysAreNotProvided() {
        for (int npkeys : new int[] {1, 2, 16, 64}) {
            RvtDriver d = new MinimalDriver(DriverParams.builder().npkeys(npkeys).build());
            int[] expected = new int[npkeys];
            expected[0] = 0xFFFF;
            assertThat(d.initialPkeys(1)).as("npkeys %d", npkeys).containsExactly(expected);
            assertThat(d.initialPkeys(2)).as("npkeys %d, port 2", npkeys).containsExactly(expected);
        }
    }

    @Test
    void shouldReturnFreshArrayWhenInitialPkeysIsCalledTwice() {
        RvtDriver d = new MinimalDriver(DriverParams.builder().npkeys(4).build());
        int[] first = d.initialPkeys(1);
        first[0] = 0x1234;
        assertThat(d.initialPkeys(1)[0]).isEqualTo(0xFFFF);
    }

    /** A driver whose scheduleSend records whether the QP's sendLock is held by the calling thread. */
    private static final class RecordingDriver extends MinimalDriver implements SendEngine {
        final List<Boolean> heldDuringCall = new ArrayList<>();
        ReentrantLock lock;
        RuntimeException toThrow;

        @Override
        public boolean scheduleSend(DriverQp qp) {
            heldDuringCall.add(lock.isHeldByCurrentThread());
            if (toThrow != null) {
                throw toThrow;
            }
            return true;
        }

        @Override
        public void doSend(DriverQp qp) {
        }
    }

    @Test
    void shouldHandInItselfWhenTheDriverImplementsAGroup() {
        RecordingDriver d = new RecordingDriver();
        assertThat(d.sendEngine()).isSameAs(d);
        assertThat(d.mtuConversion()).as("a group it does not implement").isNull();
    }

    @Test
    void shouldCallScheduleSendUnderSendLockWhenScheduleSendNoLockIsNotProvided() {
        RecordingDriver d = new RecordingDriver();
        d.lock = new ReentrantLock();
        when(qp.sendLock()).thenReturn(d.lock);

        assertThat(d.scheduleSendNoLock(qp)).isTrue();

        assertThat(d.heldDuringCall).containsExactly(true);
        assertThat(d.lock.isLocked()).as("sendLock released afterwards").isFalse();
        verify(qp, never()).recvLock();
        verify(qp, never()).postLock();
    }

    @Test
    void shouldReleaseSendLockWhenScheduleSendThrows() {
        RecordingDriver d = new RecordingDriver();
        d.lock = new ReentrantLock();
        d.toThrow = new IllegalStateException("engine gone");
        when(qp.sendLock()).thenReturn(d.lock);

        assertThatThrownBy(() -> d.scheduleSendNoLock(qp)).isSameAs(d.toThrow);

        assertThat(d.heldDuringCall).containsExactly(true);
        assertThat(d.lock.isLocked()).isFalse();
    }

    @Test
    void shouldHaveHz1000WhenTimerServiceDoesNotSayOtherwise() {
        TimerService ts = new TimerService() {
            @Override
            public long nanoTime() {
                return 0;
            }

            @Override
            public RvtTimer newTimer(String name, Runnable action) {
                return null;
            }
        };
        assertThat(ts.hz()).isEqualTo(1000);
    }

    // ------------------------------------------------------------------ callbacks and their groups

    private static Method method(Callback c) {
        for (Method m : c.group().getMethods()) {
            if (m.getName().equals(c.methodName())) {
                return m;
            }
        }
        throw new AssertionError("no method " + c.methodName() + " in " + c.group().getSimpleName());
    }

    private static Object defaultArg(Class<?> t) {
        if (!t.isPrimitive()) {
            return null;
        }
        if (t == boolean.class) {
            return false;
        }
        if (t == long.class) {
            return 0L;
        }
        return 0;
    }

    private static Throwable invokeDefault(RvtDriver d, Method m) {
        Object[] args = new Object[m.getParameterCount()];
        for (int i = 0; i < args.length; i++) {
            args[i] = defaultArg(m.getParameterTypes()[i]);
        }
        try {
            m.invoke(d, args);
            return null;
        } catch (InvocationTargetException e) {
            return e.getCause();
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void shouldDeclareEveryVerbRequiredCallbackInAGroupWithNoDefault() {
        // A required callback is never a default to override: its group is handed in whole, or not at all.
        Set<Callback> required = EnumSet.noneOf(Callback.class);
        for (Verb v : Verb.values()) {
            for (Callback c : v.requiredCallbacks()) {
                required.add(c);
                assertThat(c.group()).as("%s (needed by %s)", c, v).isNotEqualTo(RvtDriver.class);
                assertThat(Modifier.isAbstract(method(c).getModifiers())).as("%s (needed by %s)", c, v).isTrue();
            }
        }
        assertThat(required).containsExactlyInAnyOrder(Callback.SCHEDULE_SEND, Callback.DO_SEND,
                Callback.GET_PMTU_FROM_ATTR, Callback.MTU_FROM_QP, Callback.MTU_TO_PATH_MTU,
                Callback.GET_GUID_BE, Callback.QUERY_PORT_STATE, Callback.SHUT_DOWN_PORT, Callback.CAP_MASK_CHG);
    }

    @Test
    void shouldHaveNoAbstractMethodOtherThanIdentityWhenADriverImplementsRvtDriver() {
        Set<String> abstractOnes = new java.util.TreeSet<>();
        for (Method m : RvtDriver.class.getDeclaredMethods()) {
            if (Modifier.isAbstract(m.getModifiers())) {
                abstractOnes.add(m.getName());
            }
        }
        assertThat(abstractOnes).containsExactly("name", "params", "postParms");
    }

    @Test
    void shouldNotThrowWhenOptionalCallbackIsNotProvided() {
        Set<Callback> optional = EnumSet.noneOf(Callback.class);
        for (Callback c : Callback.values()) {
            if (c.group() == RvtDriver.class) {
                optional.add(c);
            }
        }
        assertThat(optional).containsExactlyInAnyOrder(Callback.CHECK_AH, Callback.NOTIFY_NEW_AH,
                Callback.ALLOC_QPN, Callback.CHECK_MODIFY_QP, Callback.MODIFY_QP, Callback.NOTIFY_CREATE_MAD_AGENT,
                Callback.NOTIFY_FREE_MAD_AGENT, Callback.COMP_VECT_CPU_LOOKUP);
        for (Callback c : optional) {
            assertThat(invokeDefault(driver, method(c))).as(c.name()).isNull();
        }
    }
}
