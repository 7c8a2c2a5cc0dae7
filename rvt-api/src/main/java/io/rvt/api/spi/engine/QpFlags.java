package io.rvt.api.spi.engine;

/**
 * Bit masks of a QP's send flags ({@code s_flags}, under {@code sendLock}), receive flags ({@code r_flags}, under
 * {@code recvLock}), the receive flags rdmavt keeps atomic ({@code r_aflags}, here under {@code recvLock} too) and
 * rdmavt's internal send-WQE flags. The names are rdmavt's without the {@code RVT_} prefix; drivers may allocate their
 * own {@code s_flags} bits from bit 31 down to bit 24 ({@link #S_MAX_BIT_MASK} is the highest bit rdmavt uses).
 */
public final class QpFlags {
    private QpFlags() {
    }

    /** {@code RVT_S_SIGNAL_REQ_WR}: created with {@code SIGNAL_REQ_WR}; survives reset. */
    public static final int S_SIGNAL_REQ_WR = 0x00001;
    /** {@code RVT_S_BUSY}: the send engine (or loopback) is running on this QP. */
    public static final int S_BUSY = 0x00002;
    /** {@code RVT_S_TIMER}: the RC retry timer is armed. */
    public static final int S_TIMER = 0x00004;
    /** {@code RVT_S_RESP_PENDING}: responder has RDMA READ/atomic responses pending. */
    public static final int S_RESP_PENDING = 0x00008;
    /** {@code RVT_S_ACK_PENDING}: an ACK is waiting to be sent. */
    public static final int S_ACK_PENDING = 0x00010;
    /** {@code RVT_S_WAIT_FENCE}: waiting for earlier READs/atomics before a fenced WQE. */
    public static final int S_WAIT_FENCE = 0x00020;
    /** {@code RVT_S_WAIT_RDMAR}: waiting for RDMA READ/atomic completion. */
    public static final int S_WAIT_RDMAR = 0x00040;
    /** {@code RVT_S_WAIT_RNR}: waiting for the RNR timer. */
    public static final int S_WAIT_RNR = 0x00080;
    /** {@code RVT_S_WAIT_SSN_CREDIT}: waiting for RC flow-control credit. */
    public static final int S_WAIT_SSN_CREDIT = 0x00100;
    /** {@code RVT_S_WAIT_DMA}: waiting for send DMA to drain. */
    public static final int S_WAIT_DMA = 0x00200;
    /** {@code RVT_S_WAIT_PIO}: waiting for a PIO buffer. */
    public static final int S_WAIT_PIO = 0x00400;
    /** {@code RVT_S_WAIT_TX}: waiting for a tx request. */
    public static final int S_WAIT_TX = 0x00800;
    /** {@code RVT_S_WAIT_DMA_DESC}: waiting for DMA descriptors. */
    public static final int S_WAIT_DMA_DESC = 0x01000;
    /** {@code RVT_S_WAIT_KMEM}: waiting for memory. */
    public static final int S_WAIT_KMEM = 0x02000;
    /** {@code RVT_S_WAIT_PSN}: waiting for a packet to leave the send queue. */
    public static final int S_WAIT_PSN = 0x04000;
    /** {@code RVT_S_WAIT_ACK}: waiting for an ACK before sending more. */
    public static final int S_WAIT_ACK = 0x08000;
    /** {@code RVT_S_SEND_ONE}: send one packet, request an ACK, then wait. */
    public static final int S_SEND_ONE = 0x10000;
    /** {@code RVT_S_UNLIMITED_CREDIT}: the peer advertised "invalid credit" (no flow control). */
    public static final int S_UNLIMITED_CREDIT = 0x20000;
    /** {@code RVT_S_ECN}: a BECN was queued. */
    public static final int S_ECN = 0x40000;
    /** {@code RVT_S_MAX_BIT_MASK}: the highest bit rdmavt uses. */
    public static final int S_MAX_BIT_MASK = 0x800000;
    /** {@code RVT_S_ANY_WAIT_IO}. */
    public static final int S_ANY_WAIT_IO = S_WAIT_PIO | S_WAIT_TX | S_WAIT_DMA_DESC | S_WAIT_KMEM;
    /** {@code RVT_S_ANY_WAIT_SEND}. */
    public static final int S_ANY_WAIT_SEND = S_WAIT_FENCE | S_WAIT_RDMAR | S_WAIT_RNR | S_WAIT_SSN_CREDIT
            | S_WAIT_DMA | S_WAIT_PSN | S_WAIT_ACK;
    /** {@code RVT_S_ANY_WAIT}. */
    public static final int S_ANY_WAIT = S_ANY_WAIT_IO | S_ANY_WAIT_SEND;

    /** {@code RVT_R_REUSE_SGE}: reuse the current receive SGE state for the next packet. */
    public static final int R_REUSE_SGE = 0x01;
    /** {@code RVT_R_RDMAR_SEQ}: an RDMA READ response sequence error was seen. */
    public static final int R_RDMAR_SEQ = 0x02;
    /** {@code RVT_R_RSP_NAK}: a NAK is pending. */
    public static final int R_RSP_NAK = 0x04;
    /** {@code RVT_R_RSP_SEND}: a response is pending. */
    public static final int R_RSP_SEND = 0x08;
    /** {@code RVT_R_COMM_EST}: communication established was signalled. */
    public static final int R_COMM_EST = 0x10;

    /** {@code RVT_R_WRID_VALID} (as a mask): a receive WQE was consumed and its completion is pending. */
    public static final int RA_WRID_VALID = 0x01;
    /** {@code RVT_R_REWIND_SGE} (as a mask): the RDMA READ SGE state holds region references. */
    public static final int RA_REWIND_SGE = 0x02;

    /** {@code RVT_SEND_RESERVE_USED}: the WQE occupies a reserved slot; it never produces a completion. */
    public static final int SEND_RESERVE_USED = 1 << 26;
    /** {@code RVT_SEND_COMPLETION_ONLY}: a local operation already executed; the WQE only yields its completion. */
    public static final int SEND_COMPLETION_ONLY = 1 << 27;
}
