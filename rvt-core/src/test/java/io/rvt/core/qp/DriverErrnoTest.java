package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Errno;
import io.rvt.api.PortAttr;
import io.rvt.api.PortModifyFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.engine.CallSend;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.SetupWqeTestDriver;
import io.rvt.core.TestDriver;
import org.junit.jupiter.api.Test;

/**
 * A driver may return any errno, also one rvt's {@link Errno} has no constant for: the verb reports it as
 * {@link Errno#OTHER} with its number and Linux name (and the bad-WR index for a post) instead of failing inside
 * the mapping with an IllegalArgumentException.
 */
class DriverErrnoTest {
    private static final int E2BIG = -7;

    @Test
    void shouldCarryAnUnknownErrnoWithTheBadIndexWhenSetupWqeRefusesAWorkRequest() {
        TestDriver driver = new SetupWqeTestDriver() {
            @Override
            public int setupWqe(DriverQp qp, SendWqe wqe, CallSend callSend) {
                return wqe.wrId() == 2 ? E2BIG : 0;
            }
        };
        driver.params(LoopbackTestDriver.loopbackParams(0).build());
        QpEnv env = new QpEnv(driver);
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        int head = qp.sendQueue().head();
        assertThatThrownBy(() -> qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(1)
                .next(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(2))))
                .isInstanceOfSatisfying(WorkRequestException.class, e -> {
                    assertThat(e.badIndex()).isEqualTo(1);
                    assertThat(e.errno()).isEqualTo(Errno.OTHER);
                    assertThat(e.errnoValue()).isEqualTo(7);
                    assertThat(e.getMessage()).contains("setup_wqe").contains("E2BIG, errno 7");
                });
        assertThat(qp.sendQueue().head()).as("the first WR was posted").isEqualTo(qp.sendQueue().swqeIncr(head));
    }

    @Test
    void shouldCarryAnUnknownErrnoWhenAPortCallbackFails() {
        TestDriver driver = new TestDriver() {
            @Override
            public int shutDownPort(DriverDevice rdi, int portNum) {
                return E2BIG;
            }
        };
        driver.queryPortResult(E2BIG);
        QpEnv env = new QpEnv(driver);
        assertThatThrownBy(() -> env.dev.queryPort(1, new PortAttr())).isInstanceOfSatisfying(VerbsException.class,
                e -> {
                    assertThat(e.errno()).isEqualTo(Errno.OTHER);
                    assertThat(e.getMessage()).contains("query_port_state").contains("E2BIG");
                });
        assertThatThrownBy(() -> env.dev.modifyPort(1, PortModifyFlag.SHUTDOWN.bit(), 0, 0))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.OTHER);
                    assertThat(e.errnoValue()).isEqualTo(7);
                    assertThat(e.getMessage()).contains("shut_down_port");
                });
    }
}
