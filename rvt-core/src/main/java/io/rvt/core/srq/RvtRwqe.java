package io.rvt.core.srq;

import io.rvt.api.RecvWorkRequest;
import io.rvt.api.ScatterGatherEntry;

/**
 * One receive work queue entry ({@code struct rvt_rwqe}): the caller's {@code wr_id} and up to {@link #maxSge()}
 * scatter entries {@code {addr, length, lkey}}. The arrays are allocated once, when the slot (or the consumer's
 * destination) is built, so posting and consuming allocate nothing.
 *
 * <p>A slot in an {@link RvtRq} ring is written only by the producer holding {@link RvtRq#producerLock()} while the
 * slot is outside {@code [tail, head)}, and read only by the consumer holding {@link RvtRq#consumerLock()} while it
 * is inside; the head/tail release-acquire pairs order those accesses. A destination filled by
 * {@link RvtRq#take(RvtRwqe)} belongs to its caller. Not thread-safe by itself.
 */
public final class RvtRwqe {
    private long wrId;
    private int numSge;
    private final long[] addr;
    private final int[] length;
    private final int[] lkey;

    /**
     * @param maxSge capacity of the scatter list, at least 0
     */
    public RvtRwqe(int maxSge) {
        if (maxSge < 0) {
            throw new IllegalArgumentException("maxSge must be at least 0, got " + maxSge);
        }
        this.addr = new long[maxSge];
        this.length = new int[maxSge];
        this.lkey = new int[maxSge];
    }

    /** @return the caller's id ({@code wr_id}) */
    public long wrId() {
        return wrId;
    }

    /** @return entries in use ({@code num_sge}) */
    public int numSge() {
        return numSge;
    }

    /** @return capacity of the scatter list */
    public int maxSge() {
        return addr.length;
    }

    /**
     * @param i entry index, below {@link #numSge()}
     * @return the virtual address of entry {@code i}
     */
    public long addr(int i) {
        return addr[i];
    }

    /**
     * @param i entry index, below {@link #numSge()}
     * @return the length in bytes of entry {@code i}
     */
    public int length(int i) {
        return length[i];
    }

    /**
     * @param i entry index, below {@link #numSge()}
     * @return the local key of entry {@code i}
     */
    public int lkey(int i) {
        return lkey[i];
    }

    /**
     * Copies {@code wr}'s id and its first {@code wr.numSge()} entries; the caller checked that they fit.
     *
     * @param wr the request
     */
    void copyFrom(RecvWorkRequest wr) {
        int n = wr.numSge();
        for (int i = 0; i < n; i++) {
            ScatterGatherEntry sge = wr.sge(i);
            addr[i] = sge.addr();
            length[i] = sge.length();
            lkey[i] = sge.lkey();
        }
        wrId = wr.wrId();
        numSge = n;
    }

    /**
     * Copies {@code src}'s id and its entries in use; the caller checked that they fit.
     *
     * @param src the entry to copy
     */
    void copyFrom(RvtRwqe src) {
        int n = src.numSge;
        System.arraycopy(src.addr, 0, addr, 0, n);
        System.arraycopy(src.length, 0, length, 0, n);
        System.arraycopy(src.lkey, 0, lkey, 0, n);
        wrId = src.wrId;
        numSge = n;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("RvtRwqe{wrId=").append(wrId).append(", sges=[");
        for (int i = 0; i < numSge; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append("{addr=0x").append(Long.toHexString(addr[i])).append(", length=").append(length[i])
                    .append(", lkey=0x").append(Integer.toHexString(lkey[i])).append('}');
        }
        return sb.append("]}").toString();
    }
}
