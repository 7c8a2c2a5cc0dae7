package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WorkCompletionTest {

    private static WorkCompletion full() {
        return new WorkCompletion().wrId(0x1234_5678_9ABCL).status(WcStatus.REM_ACCESS_ERR)
                .opcode(WcOpcode.RECV_RDMA_WITH_IMM).vendorErr(1).byteLen(2).immData(3).invalidateRkey(4).qpNum(5)
                .srcQp(6).wcFlags(WcFlag.mask(WcFlag.WITH_IMM, WcFlag.GRH)).pkeyIndex(8).slid(9).sl(10)
                .dlidPathBits(11).portNum(12);
    }

    @Test
    void shouldStartAsZeroedSuccessfulSendWhenCreated() {
        WorkCompletion wc = new WorkCompletion();
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.opcode()).isEqualTo(WcOpcode.SEND);
        assertThat(wc.wrId()).isZero();
        assertThat(wc.byteLen()).isZero();
        assertThat(wc.wcFlags()).isZero();
    }

    @Test
    void shouldCopyEveryFieldWhenCopyFromIsCalled() {
        WorkCompletion src = full();
        TestFields.assertEveryFieldDiffers(new WorkCompletion(), src);
        WorkCompletion dst = new WorkCompletion().wrId(99);
        assertThat(dst.copyFrom(src)).isSameAs(dst);
        TestFields.assertSameFieldValues(src, dst);
        assertThat(dst.wrId()).isEqualTo(0x1234_5678_9ABCL);
        assertThat(dst.status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(dst.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(dst.portNum()).isEqualTo(12);
    }

    @Test
    void shouldResetEveryFieldWhenCleared() {
        WorkCompletion wc = full();
        assertThat(wc.clear()).isSameAs(wc);
        TestFields.assertSameFieldValues(new WorkCompletion(), wc);
    }

    @Test
    void shouldShowImmediateDataWhenWithImmFlagIsSet() {
        WorkCompletion wc = new WorkCompletion().immData(0xBEEF);
        assertThat(wc.toString()).doesNotContain("beef");
        wc.wcFlags(WcFlag.WITH_IMM.bit());
        assertThat(wc.toString()).contains("WITH_IMM").contains("imm=0xbeef");
    }
}
