package io.rvt.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A shared receive queue ({@code struct ib_srq}; rdmavt: {@code struct rvt_srq}): receive work requests consumed by
 * any QP attached to it. Any thread may post.
 */
@ProviderType
public interface SharedReceiveQueue {
    /** @return the device */
    Device device();

    /**
     * Posts {@code wr} and the requests chained after it ({@code ibv_post_srq_recv}; rdmavt:
     * {@code rvt_post_srq_recv}).
     *
     * @param wr the first request of the list
     * @throws WorkRequestException EINVAL for too many SGEs, ENOMEM when full; with the index of the first request
     *                              not posted
     */
    void postSrqRecv(RecvWorkRequest wr);

    /**
     * Resizes the SRQ and/or arms its limit ({@code ibv_modify_srq}; rdmavt: {@code rvt_modify_srq}).
     *
     * @param attr the new values
     * @param mask {@link SrqAttrMask} bits
     * @throws VerbsException EINVAL for a size over {@code max_srq_wr} or below the queued count, or a limit not
     *                        below the size
     */
    void modifySrq(SrqAttr attr, int mask);

    /**
     * @param out filled with the size, SGEs and limit in effect
     * @return {@code out}
     */
    SrqAttr querySrq(SrqAttr out);

    /**
     * Destroys the SRQ ({@code ibv_destroy_srq}).
     *
     * @throws VerbsException EBUSY while a QP uses it
     */
    void destroySrq();
}
