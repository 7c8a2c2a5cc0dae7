package io.rvt.api;

/**
 * A receive work request ({@code struct ib_recv_wr}): an id and a scatter list of up to {@link #maxSge()} entries,
 * pre-allocated at construction, so that a request can be reused for every post without allocation. Requests can be
 * chained with {@link #next(RecvWorkRequest)} and posted as a list in one call. Not thread-safe.
 */
public final class RecvWorkRequest {
    private long wrId;
    private final ScatterGatherEntry[] sgList;
    private int numSge;
    private RecvWorkRequest next;

    /**
     * @param maxSge the number of scatter/gather entries this request can hold, at least 0
     */
    public RecvWorkRequest(int maxSge) {
        Checks.nonNegative("maxSge", maxSge);
        sgList = new ScatterGatherEntry[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sgList[i] = new ScatterGatherEntry();
        }
    }

    /** @return the caller's id, returned in the completion */
    public long wrId() {
        return wrId;
    }

    /**
     * @param wrId the caller's id, returned in the completion
     * @return this
     */
    public RecvWorkRequest wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** @return the number of entries in use */
    public int numSge() {
        return numSge;
    }

    /**
     * @param n the number of entries in use, 0..{@link #maxSge()}
     * @return this
     */
    public RecvWorkRequest numSge(int n) {
        this.numSge = Checks.range("numSge", n, 0, sgList.length);
        return this;
    }

    /** @return the capacity of the scatter list */
    public int maxSge() {
        return sgList.length;
    }

    /**
     * @param i index, 0..{@link #maxSge()}-1
     * @return the entry at {@code i} (owned by this request; set it in place)
     */
    public ScatterGatherEntry sge(int i) {
        return sgList[Checks.range("sge index", i, 0, sgList.length - 1)];
    }

    /**
     * Sets a single scatter entry covering {@code length} bytes at {@code offset} in {@code mr}.
     *
     * @param mr the region
     * @param offset offset in the region
     * @param length length in bytes
     * @return this
     */
    public RecvWorkRequest sge(MemoryRegion mr, int offset, int length) {
        sge(0).set(mr, offset, length);
        numSge = 1;
        return this;
    }

    /** @return the next request in the list, or null */
    public RecvWorkRequest next() {
        return next;
    }

    /**
     * @param next the next request in the list, or null to end it
     * @return this
     */
    public RecvWorkRequest next(RecvWorkRequest next) {
        this.next = next;
        return this;
    }
}
