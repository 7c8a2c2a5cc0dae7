package io.rvt.api.spi.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Bit values against rdmavt-semantics.md §1.4 and §0.3. */
class QpFlagsTest {

    @Test
    void shouldHaveRdmavtSendFlagBitsWhenComparedWithRdmavt() {
        assertThat(QpFlags.S_SIGNAL_REQ_WR).isEqualTo(0x00001);
        assertThat(QpFlags.S_BUSY).isEqualTo(0x00002);
        assertThat(QpFlags.S_TIMER).isEqualTo(0x00004);
        assertThat(QpFlags.S_RESP_PENDING).isEqualTo(0x00008);
        assertThat(QpFlags.S_ACK_PENDING).isEqualTo(0x00010);
        assertThat(QpFlags.S_WAIT_FENCE).isEqualTo(0x00020);
        assertThat(QpFlags.S_WAIT_RDMAR).isEqualTo(0x00040);
        assertThat(QpFlags.S_WAIT_RNR).isEqualTo(0x00080);
        assertThat(QpFlags.S_WAIT_SSN_CREDIT).isEqualTo(0x00100);
        assertThat(QpFlags.S_WAIT_DMA).isEqualTo(0x00200);
        assertThat(QpFlags.S_WAIT_PIO).isEqualTo(0x00400);
        assertThat(QpFlags.S_WAIT_TX).isEqualTo(0x00800);
        assertThat(QpFlags.S_WAIT_DMA_DESC).isEqualTo(0x01000);
        assertThat(QpFlags.S_WAIT_KMEM).isEqualTo(0x02000);
        assertThat(QpFlags.S_WAIT_PSN).isEqualTo(0x04000);
        assertThat(QpFlags.S_WAIT_ACK).isEqualTo(0x08000);
        assertThat(QpFlags.S_SEND_ONE).isEqualTo(0x10000);
        assertThat(QpFlags.S_UNLIMITED_CREDIT).isEqualTo(0x20000);
        assertThat(QpFlags.S_ECN).isEqualTo(0x40000);
        assertThat(QpFlags.S_MAX_BIT_MASK).isEqualTo(0x800000);
    }

    @Test
    void shouldComposeWaitMasksWhenComparedWithRdmavt() {
        assertThat(QpFlags.S_ANY_WAIT_IO).isEqualTo(0x00400 | 0x00800 | 0x01000 | 0x02000);
        assertThat(QpFlags.S_ANY_WAIT_SEND)
                .isEqualTo(0x00020 | 0x00040 | 0x00080 | 0x00100 | 0x00200 | 0x04000 | 0x08000);
        assertThat(QpFlags.S_ANY_WAIT).isEqualTo(QpFlags.S_ANY_WAIT_IO | QpFlags.S_ANY_WAIT_SEND);
    }

    @Test
    void shouldHaveRdmavtReceiveAndInternalSendBitsWhenComparedWithRdmavt() {
        assertThat(QpFlags.R_REUSE_SGE).isEqualTo(0x01);
        assertThat(QpFlags.R_RDMAR_SEQ).isEqualTo(0x02);
        assertThat(QpFlags.R_RSP_NAK).isEqualTo(0x04);
        assertThat(QpFlags.R_RSP_SEND).isEqualTo(0x08);
        assertThat(QpFlags.R_COMM_EST).isEqualTo(0x10);
        assertThat(QpFlags.RA_WRID_VALID).isEqualTo(0x01);
        assertThat(QpFlags.RA_REWIND_SGE).isEqualTo(0x02);
        assertThat(QpFlags.SEND_RESERVE_USED).isEqualTo(1 << 26);
        assertThat(QpFlags.SEND_COMPLETION_ONLY).isEqualTo(1 << 27);
    }
}
