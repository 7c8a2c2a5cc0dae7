package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverPort;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.TestDriver;
import org.junit.jupiter.api.Test;

/**
 * Multicast attach checks its addresses before anything changes (as {@code ib_attach_mcast}) and rolls back when the
 * driver refuses; {@code CUR_STATE} asserts the QP's state instead of replacing it.
 */
class QpAddressAndStateChecksTest {
    private static final Gid MGID = Gid.of(0xFF12_401B_0000_0000L, 0x1234);
    private static final int MLID = 0xC017;

    private static void assertEinval(Runnable verb, String... words) {
        assertThatThrownBy(verb::run).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.errno()).as(e.getMessage()).isEqualTo(Errno.EINVAL);
            assertThat(e.getMessage()).contains(words);
        });
    }

    private static RvtQp udQp(QpEnv env) {
        RvtQp qp = env.create(QpType.UD, 4, 4, 1);
        env.toInit(qp);
        return qp;
    }

    @Test
    void shouldRefuseAUnicastGidOrLidBeforeAnythingChangesWhenAttachingToMulticast() {
        QpEnv env = new QpEnv(new TestDriver().params(LoopbackTestDriver.loopbackParams(0).build()));
        RvtQp qp = udQp(env);
        assertEinval(() -> qp.attachMcast(Gid.of(0xFE80_0000_0000_0000L, 1), MLID), "attachMcast", "gid",
                "not a multicast GID");
        assertEinval(() -> qp.attachMcast(MGID, 0x0005), "attachMcast", "lid 0x5", "not a multicast LID");
        assertEinval(() -> qp.attachMcast(MGID, 0xFFFF), "lid 0xffff");
        assertEinval(() -> qp.attachMcast(null, MLID), "gid is null");
        assertThat(env.dev.port(1).mcastTable().attachmentCount(qp)).isZero();
        assertThat(env.dev.deviceCounter(DeviceCounter.MCAST_GRPS_ALLOCATED)).isZero();
        qp.attachMcast(Gid.ipv4Mapped(0xE000_00FB), MLID); // 224.0.0.251: an IPv4-mapped multicast GID
        qp.detachMcast(Gid.ipv4Mapped(0xE000_00FB), MLID);
        qp.destroyQp();
    }

    @Test
    void shouldRollBackWhenTheDriverRefusesTheAttachment() {
        TestDriver driver = new TestDriver() {
            @Override
            public void notifyMcastAttach(DriverDevice rdi, DriverPort port, Gid mgid, int mlid) {
                throw new IllegalArgumentException("no multicast filter left");
            }
        };
        driver.params(LoopbackTestDriver.loopbackParams(0).build());
        QpEnv env = new QpEnv(driver);
        RvtQp qp = udQp(env);
        assertEinval(() -> qp.attachMcast(MGID, MLID), "refused", "no multicast filter left");
        assertThat(env.dev.port(1).mcastTable().attachmentCount(qp)).isZero();
        assertThat(env.dev.port(1).mcastTable().groupCount()).isZero();
        assertThat(env.dev.deviceCounter(DeviceCounter.MCAST_GRPS_ALLOCATED)).isZero();
        assertEinval(() -> qp.detachMcast(MGID, MLID), "no multicast group");
        qp.destroyQp(); // not wedged
    }

    @Test
    void shouldRefuseCurStateThatDiffersFromTheQpState() {
        QpEnv env = new QpEnv(new TestDriver().params(LoopbackTestDriver.loopbackParams(0).build()));
        RvtQp qp = env.rc();
        env.toInit(qp);
        int mask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.CUR_STATE);
        assertEinval(() -> qp.modifyQp(new QpAttr().qpState(QpState.RTS).curQpState(QpState.RTS), mask),
                "curQpState RTS", "state INIT");
        assertThat(qp.state()).isEqualTo(QpState.INIT);
        assertThat(qp.remoteQpn()).isZero();
        // A true assertion is accepted.
        env.toRtr(qp, qp.qpNum());
        env.toRts(qp);
        qp.modifyQp(new QpAttr().qpState(QpState.RTS).curQpState(QpState.RTS), mask);
        assertThat(qp.state()).isEqualTo(QpState.RTS);
    }
}
