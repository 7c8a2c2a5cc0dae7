package io.rvt.api;

/**
 * A type 1 bind request ({@code struct ibv_mw_bind}) for {@link QueuePair#bindMw}: the completion's id and flags and
 * the {@link MwBindInfo}. Mutable and reusable; not thread-safe.
 */
public final class MwBind {
    private long wrId;
    private int sendFlags;
    private final MwBindInfo bindInfo = new MwBindInfo();

    /** @return the id returned in the bind's completion ({@code wr_id}) */
    public long wrId() {
        return wrId;
    }

    /**
     * @param wrId the id returned in the bind's completion ({@code wr_id})
     * @return this
     */
    public MwBind wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** @return {@link SendFlag} bits ({@code send_flags}) */
    public int sendFlags() {
        return sendFlags;
    }

    /**
     * @param flags {@link SendFlag} bits ({@code send_flags}): SIGNALED asks for a completion, FENCE is honoured
     * @return this
     */
    public MwBind sendFlags(int flags) {
        this.sendFlags = flags;
        return this;
    }

    /** @return the bind's region, range and access ({@code bind_info}; owned by this request, set it in place) */
    public MwBindInfo bindInfo() {
        return bindInfo;
    }
}
