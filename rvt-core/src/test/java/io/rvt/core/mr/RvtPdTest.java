package io.rvt.core.mr;

import static io.rvt.core.TestUtil.assertErrno;
import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AhAttr;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.MemoryRegion;
import io.rvt.api.ProtectionDomain;
import io.rvt.core.RvtDevice;
import io.rvt.core.TestDriver;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RvtPdTest {
    private RvtDevice dev;

    @AfterEach
    void tearDown() {
        if (dev != null) {
            dev.unregister();
        }
    }

    @Test
    void shouldFailWithEnomemAndLeaveTheCounterWhenMaxPdIsReached() {
        dev = new TestDriver().props(TestDriver.defaultProps().maxPd(3).build()).register();
        List<ProtectionDomain> pds = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            pds.add(dev.allocPd());
        }
        assertErrno(dev::allocPd, Errno.ENOMEM, "max_pd 3");
        assertErrno(() -> RvtPd.alloc(dev, true), Errno.ENOMEM);
        assertThat(dev.deviceCounter(DeviceCounter.PDS_ALLOCATED)).isEqualTo(3);
        pds.remove(0).deallocPd();
        assertThat(dev.deviceCounter(DeviceCounter.PDS_ALLOCATED)).isEqualTo(2);
        RvtPd user = RvtPd.alloc(dev, true);
        assertThat(user.isUser()).isTrue();
        assertThat(((RvtPd) pds.get(0)).isUser()).isFalse();
        assertThat(user.dev()).isSameAs(dev);
        assertThat(user.device()).isSameAs(dev);
    }

    @Test
    void shouldRefuseDeallocWithEbusyNamingTheCountWhileObjectsExist() {
        dev = new TestDriver().register();
        RvtPd pd = RvtPd.alloc(dev, false);
        MemoryRegion mr = pd.regMr(ByteBuffer.allocate(8), 0);
        MemoryRegion fr = pd.allocMr(1);
        var ah = pd.createAh(new AhAttr().portNum(1));
        assertErrno(pd::deallocPd, Errno.EBUSY, "3 objects");
        assertThat(dev.deviceCounter(DeviceCounter.PDS_ALLOCATED)).isEqualTo(1);
        mr.deregMr();
        fr.deregMr();
        assertErrno(pd::deallocPd, Errno.EBUSY, "1 object ");
        ah.destroyAh();
        pd.deallocPd();
        assertThat(dev.deviceCounter(DeviceCounter.PDS_ALLOCATED)).isZero();
        assertErrno(pd::deallocPd, Errno.EINVAL, "already deallocated");
        assertErrno(() -> pd.regMr(ByteBuffer.allocate(8), 0), Errno.EINVAL, "deallocated");
        assertErrno(() -> pd.createAh(new AhAttr().portNum(1)), Errno.EINVAL, "deallocated");
        assertThat(dev.deviceCounter(DeviceCounter.MRS_ALLOCATED)).isZero();
        assertThat(dev.deviceCounter(DeviceCounter.AHS_ALLOCATED)).isZero();
    }

    @Test
    void shouldFailEveryVerbButTeardownWithEnodevWhenTheDeviceWasRemoved() {
        dev = new TestDriver().register();
        RvtPd pd = RvtPd.alloc(dev, false);
        MemoryRegion mr = pd.regMr(ByteBuffer.allocate(8), 0);
        dev.unregister();
        assertErrno(() -> pd.regMr(ByteBuffer.allocate(8), 0), Errno.ENODEV);
        assertErrno(() -> pd.allocMr(1), Errno.ENODEV);
        assertErrno(() -> pd.createAh(new AhAttr().portNum(1)), Errno.ENODEV);
        assertErrno(() -> pd.createQp(null), Errno.ENODEV);
        assertErrno(() -> pd.createSrq(null), Errno.ENODEV);
        assertErrno(() -> RvtPd.alloc(dev, false), Errno.ENODEV);
        // Teardown still works, so applications can clean up after the device went away.
        mr.deregMr();
        pd.deallocPd();
        assertErrno(pd::deallocPd, Errno.EINVAL);
    }
}
