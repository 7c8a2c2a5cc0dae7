package io.rvt.api;

/**
 * What a bind gives a memory window ({@code struct ibv_mw_bind_info}): the region, the range and the window's access
 * rights. Used by {@link MwBind} ({@code ibv_bind_mw}) and by a {@link WrOpcode#BIND_MW} work request
 * ({@code ibv_send_wr.bind_mw.bind_info}). A length of 0 with no region unbinds a type 1 window. Mutable and
 * reusable; not thread-safe. Every value is checked by the bind itself.
 */
public final class MwBindInfo {
    private MemoryRegion mr;
    private long addr;
    private long length;
    private int mwAccessFlags;

    /** @return the region the window is bound to ({@code mr}), or null */
    public MemoryRegion mr() {
        return mr;
    }

    /**
     * @param region the region ({@code mr}), registered with {@link AccessFlag#MW_BIND}; null to unbind (type 1)
     * @return this
     */
    public MwBindInfo mr(MemoryRegion region) {
        this.mr = region;
        return this;
    }

    /** @return the first virtual address of the window, in the region's addresses ({@code addr}) */
    public long addr() {
        return addr;
    }

    /**
     * @param addr the first virtual address of the window, inside the region ({@code addr})
     * @return this
     */
    public MwBindInfo addr(long addr) {
        this.addr = addr;
        return this;
    }

    /** @return the window's length in bytes ({@code length}) */
    public long length() {
        return length;
    }

    /**
     * @param length the window's length in bytes ({@code length}); 0 unbinds a type 1 window
     * @return this
     */
    public MwBindInfo length(long length) {
        this.length = length;
        return this;
    }

    /** @return the window's {@link AccessFlag} bits ({@code mw_access_flags}) */
    public int mwAccessFlags() {
        return mwAccessFlags;
    }

    /**
     * @param flags {@link AccessFlag} bits among REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC and (type 2 only)
     *              ZERO_BASED ({@code mw_access_flags})
     * @return this
     */
    public MwBindInfo mwAccessFlags(int flags) {
        this.mwAccessFlags = flags;
        return this;
    }

    /**
     * @param other the values to copy
     * @return this
     */
    public MwBindInfo set(MwBindInfo other) {
        this.mr = other.mr;
        this.addr = other.addr;
        this.length = other.length;
        this.mwAccessFlags = other.mwAccessFlags;
        return this;
    }

    @Override
    public String toString() {
        return "MwBindInfo{mr=" + (mr == null ? "null" : "lkey 0x" + Integer.toHexString(mr.lkey())) + ", addr=0x"
                + Long.toHexString(addr) + ", length=" + length + ", access=" + AccessFlag.describe(mwAccessFlags)
                + '}';
    }
}
