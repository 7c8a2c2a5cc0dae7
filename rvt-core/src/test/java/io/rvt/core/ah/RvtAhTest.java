package io.rvt.core.ah;

import static io.rvt.api.Errno.EINVAL;
import static io.rvt.core.TestUtil.assertErrno;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.same;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.spy;
import static org.mockito.Mockito.verify;

import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverAh;
import io.rvt.api.spi.Verb;
import io.rvt.core.RvtDevice;
import io.rvt.core.TestDriver;
import io.rvt.core.mr.RvtPd;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

class RvtAhTest {
    private static final Gid DGID = Gid.of(0xFE80_0000_0000_0000L, 0x1234L);

    private RvtDevice dev;

    @AfterEach
    void tearDown() {
        if (dev != null) {
            dev.unregister();
        }
    }

    private static AhAttr attr() {
        return new AhAttr().portNum(1).dlid(0x12).sl(3);
    }

    private void assertNoAh(RvtPd pd) {
        assertThat(dev.deviceCounter(DeviceCounter.AHS_ALLOCATED)).isZero();
        assertThat(pd.useCount()).isZero();
    }

    @Test
    void shouldRejectBadPortRateAndSgidIndexAndChangeNothingWhenCreating() {
        dev = new TestDriver().gidTblLen(4).register();
        RvtPd pd = RvtPd.alloc(dev, false);
        assertErrno(() -> pd.createAh(attr().portNum(0)), Errno.EINVAL, "portNum 0");
        assertErrno(() -> pd.createAh(attr().portNum(2)), Errno.EINVAL, "portNum 2", "1..1");
        assertErrno(() -> pd.createAh(attr().staticRate(1)), Errno.EINVAL, "staticRate 1");
        assertErrno(() -> pd.createAh(attr().staticRate(23)), Errno.EINVAL, "staticRate 23");
        assertErrno(() -> pd.createAh(attr().dgid(DGID).sgidIndex(4)), Errno.EINVAL, "sgidIndex 4", "4 entries");
        assertErrno(() -> pd.createAh(null), Errno.EINVAL);
        assertNoAh(pd);

        assertThat(RvtAh.checkAh(dev, attr().staticRate(3))).isZero();
        assertThat(RvtAh.checkAh(dev, attr().dgid(DGID).sgidIndex(3))).isZero();
        assertThat(RvtAh.checkAh(dev, attr().sgidIndex(200))).as("sgid index ignored without GRH").isZero();
        assertThat(RvtAh.checkAh(dev, attr().portNum(7))).isEqualTo(-EINVAL.value());
    }

    @Test
    void shouldRejectAGlobalAddressWhenThePortCannotBeQueriedAndSkipTheIndexWhenQueryPortIsDeclined() {
        dev = new TestDriver().queryPortResult(-EINVAL.value()).register();
        assertThat(RvtAh.checkAh(dev, attr().dgid(DGID))).isEqualTo(-EINVAL.value());
        assertThat(RvtAh.checkAh(dev, attr())).isZero();
        dev.unregister();

        dev = new TestDriver().unsupportedVerbs(Verb.QUERY_PORT).register();
        assertThat(RvtAh.checkAh(dev, attr().dgid(DGID).sgidIndex(255))).isZero();
    }

    @Test
    void shouldPassTheAddressToTheDriverAndFailWithEinvalWhenCheckAhVetoes() {
        TestDriver driver = spy(new TestDriver());
        doReturn(7).when(driver).checkAh(any(), any());
        dev = driver.register();
        RvtPd pd = RvtPd.alloc(dev, false);
        assertThat(RvtAh.checkAh(dev, attr())).as("the driver's value").isEqualTo(7);
        assertErrno(() -> pd.createAh(attr().dlid(0x99)), Errno.EINVAL, "check_ah", "returned 7");
        verify(driver).checkAh(eq(dev), argThat(a -> a.dlid() == 0x99 && a.portNum() == 1 && a.sl() == 3));
        verify(driver, never()).notifyNewAh(any(), any(), any());
        assertNoAh(pd);
    }

    @Test
    void shouldNotCallCheckAhWhenTheDriverDoesNotProvideIt() {
        TestDriver driver = new TestDriver().without(Callback.CHECK_AH).checkAh(a -> -1);
        dev = driver.register();
        RvtPd pd = RvtPd.alloc(dev, false);
        pd.createAh(attr());
        assertThat(driver.calls(Callback.CHECK_AH)).isZero();
    }

    @Test
    void shouldCopyTheAttributesAndLetTheDriverFillVlAndMtuWhenCreating() {
        TestDriver driver = spy(new TestDriver().notifyNewAh((a, ah) -> {
            ah.vl(a.sl() + 1);
            ah.logPmtu(12);
        }));
        dev = driver.register();
        RvtPd pd = RvtPd.alloc(dev, false);
        AhAttr in = attr().dgid(DGID).sgidIndex(1).hopLimit(64);
        RvtAh ah = (RvtAh) pd.createAh(in);
        in.dlid(0x77);

        ArgumentCaptor<AhAttr> passed = ArgumentCaptor.forClass(AhAttr.class);
        verify(driver).notifyNewAh(eq(dev), passed.capture(), same(ah));
        assertThat(passed.getValue()).isSameAs(ah.attr());
        verify(driver).checkAh(eq(dev), any());
        assertThat(ah.vl()).isEqualTo(4);
        assertThat(ah.logPmtu()).isEqualTo(12);
        assertThat(ah.attr().dlid()).as("a copy").isEqualTo(0x12);
        assertThat(ah.queryAh(new AhAttr()).dgid()).isEqualTo(DGID);
        assertThat(ah.pd()).isSameAs(pd);
        assertThat(ah.rvtPd()).isSameAs(pd);
        assertThat(dev.deviceCounter(DeviceCounter.AHS_ALLOCATED)).isEqualTo(1);
        assertThat(pd.useCount()).isEqualTo(1);
    }

    @Test
    void shouldKeepVlAndMtuAndRejectBadAttributesWhenModifying() {
        TestDriver driver = new TestDriver().notifyNewAh((a, ah) -> ah.vl(5));
        dev = driver.register();
        RvtPd pd = RvtPd.alloc(dev, false);
        DriverAh ah = (DriverAh) pd.createAh(attr());
        AhAttr before = ah.attr();
        ah.modifyAh(attr().dlid(0x40).sl(9));
        assertThat(ah.queryAh(new AhAttr()).dlid()).isEqualTo(0x40);
        assertThat(ah.vl()).as("[quirk] not recomputed").isEqualTo(5);
        assertThat(driver.calls(Callback.NOTIFY_NEW_AH)).isEqualTo(1);
        assertThat(before.dlid()).as("earlier snapshots stay intact").isEqualTo(0x12);

        assertErrno(() -> ah.modifyAh(attr().portNum(3)), Errno.EINVAL, "modifyAh", "portNum 3");
        assertThat(ah.queryAh(new AhAttr()).dlid()).as("unchanged").isEqualTo(0x40);
        assertThat(ah.attr().portNum()).isEqualTo(1);
    }

    @Test
    void shouldFailWithEnomemAndLeaveCountersWhenMaxAhIsReached() {
        dev = new TestDriver().props(TestDriver.defaultProps().maxAh(2).build()).register();
        RvtPd pd = RvtPd.alloc(dev, false);
        AddressHandle a = pd.createAh(attr());
        pd.createAh(attr());
        assertErrno(() -> pd.createAh(attr()), Errno.ENOMEM, "max_ah 2");
        assertThat(dev.deviceCounter(DeviceCounter.AHS_ALLOCATED)).isEqualTo(2);
        assertThat(pd.useCount()).isEqualTo(2);
        a.destroyAh();
        assertThat(dev.deviceCounter(DeviceCounter.AHS_ALLOCATED)).isEqualTo(1);
        assertThat(pd.useCount()).isEqualTo(1);
        pd.createAh(attr());
    }

    @Test
    void shouldFailWithEinvalWhenDestroyedTwiceOrUsedAfterDestroy() {
        dev = new TestDriver().register();
        RvtPd pd = RvtPd.alloc(dev, false);
        RvtAh ah = (RvtAh) pd.createAh(attr());
        ah.destroyAh();
        assertThat(ah.isDestroyed()).isTrue();
        assertErrno(ah::destroyAh, Errno.EINVAL, "already destroyed");
        assertErrno(() -> ah.queryAh(new AhAttr()), Errno.EINVAL, "destroyed");
        assertErrno(() -> ah.modifyAh(attr()), Errno.EINVAL, "destroyed");
        assertNoAh(pd);
        pd.deallocPd();
    }
}
