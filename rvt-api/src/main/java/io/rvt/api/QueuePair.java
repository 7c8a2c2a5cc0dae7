package io.rvt.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A queue pair ({@code struct ib_qp}; rdmavt: {@code struct rvt_qp}): a send queue and a receive queue (or a shared
 * one), moved through the IBTA state machine with {@link #modifyQp}.
 *
 * <p>Threads: any thread may post; posts to one QP are serialised (rdmavt's {@code s_hlock} for sends, the receive
 * queue's producer lock for receives), so two threads may post to the same QP concurrently. {@code modifyQp} and
 * {@code destroyQp} take the QP's three locks.
 */
@ProviderType
public interface QueuePair {
    /** @return the device */
    Device device();

    /** @return the QP number (24 bits; 0 and 1 are a port's SMI and GSI QPs) */
    int qpNum();

    /** @return the transport type */
    QpType type();

    /** @return the current state (a racy read, like {@code qp->state}) */
    QpState state();

    /**
     * Changes state and attributes ({@code ibv_modify_qp}; rdmavt: {@code rvt_modify_qp}). The transition and mask
     * must be allowed by the IBTA table for this QP type (required attributes present, no attribute outside required
     * and optional); rdmavt's range checks follow. On any error nothing is modified.
     *
     * @param attr the attributes, of which only those in {@code mask} are read
     * @param mask {@link QpAttrMask} bits
     * @throws VerbsException EINVAL for an illegal transition, a missing or extra attribute or a bad value,
     *                        EOPNOTSUPP for a mask bit outside {@link QpAttrMask#STANDARD_BITS}
     */
    void modifyQp(QpAttr attr, int mask);

    /**
     * Fills {@code out} with the QP's attributes ({@code ibv_query_qp}; rdmavt: {@code rvt_query_qp}).
     *
     * @param out filled in place
     * @return {@code out}
     */
    QpAttr queryQp(QpAttr out);

    /**
     * Fills {@code out} with the QP's creation attributes, with the queue sizes in effect.
     *
     * @param out filled in place
     * @return {@code out}
     */
    QpInitAttr queryInitAttr(QpInitAttr out);

    /**
     * Posts the send work request {@code wr} and the ones chained after it ({@code ibv_post_send}; rdmavt:
     * {@code rvt_post_send}). Each request is copied into a send queue slot, so it may be changed and posted again as
     * soon as this returns.
     *
     * @param wr the first request of the list
     * @throws WorkRequestException with the errno rdmavt returns and the index of the first request not posted
     *                              (those before it stay posted): EINVAL in a state that does not allow posting
     *                              (index {@link WorkRequestException#NO_INDEX}), for too many SGEs, an opcode the
     *                              device or QP type does not support, a bad lkey or an address outside its region;
     *                              ENOMEM when the send queue is full
     */
    void postSend(SendWorkRequest wr);

    /**
     * Posts the receive work request {@code wr} and the ones chained after it ({@code ibv_post_recv}; rdmavt:
     * {@code rvt_post_recv}). In the error state each request is completed at once with
     * {@link WcStatus#WR_FLUSH_ERR}.
     *
     * @param wr the first request of the list
     * @throws WorkRequestException EINVAL in RESET, with an SRQ, or for too many SGEs; ENOMEM when the receive queue
     *                              is full; with the index of the first request not posted
     */
    void postRecv(RecvWorkRequest wr);

    /**
     * Attaches this UD QP to a multicast group ({@code ibv_attach_mcast}; rdmavt: {@code rvt_attach_mcast}).
     *
     * @param gid the multicast GID
     * @param lid the multicast LID
     * @throws VerbsException EINVAL for a GID that is not multicast ({@code ff00::/8} or IPv4-mapped
     *                        {@code 224.0.0.0/4}) or a LID that is not multicast ({@code 0xC000..0xFFFE}; on OPA from
     *                        {@code 0xF0000000}), both checked before anything changes as {@code ib_attach_mcast} does;
     *                        for QP 0/1, a QP in RESET, a GID already bound to another LID, or a driver that refuses
     *                        the group (the attachment is rolled back); ENOMEM over the group or attachment limits
     */
    void attachMcast(Gid gid, int lid);

    /**
     * Detaches this QP from a multicast group ({@code ibv_detach_mcast}; rdmavt: {@code rvt_detach_mcast}).
     *
     * @param gid the multicast GID
     * @param lid the multicast LID
     * @throws VerbsException EINVAL if the QP is not attached to that group
     */
    void detachMcast(Gid gid, int lid);

    /**
     * Binds a type 1 memory window ({@code ibv_bind_mw}): as libibverbs and rxe do, this posts a
     * {@link WrOpcode#BIND_MW} work request on this QP's send queue with the window's next rkey (its key part, the
     * low 8 bits, incremented: {@code ibv_inc_rkey}); the bind takes effect at once and, with
     * {@link SendFlag#SIGNALED}, completes in order with {@link WcOpcode#BIND_MW}. A bind with no region and length 0
     * unbinds the window. On success the window's {@link MemoryWindow#rkey()} is the new rkey.
     *
     * <p>Checks (rxe's {@code rxe_check_bind_mw}, libibverbs' {@code ibv_bind_mw}); any failure leaves the window, the
     * region and the queue unchanged.
     *
     * @param mw a type 1 window
     * @param bind the completion's id and flags and what to bind
     * @return the window's new rkey
     * @throws VerbsException EINVAL for a window that is not type 1 or was deallocated, a region without
     *                        {@link AccessFlag#MW_BIND}, a zero-based region or window, a range outside the region,
     *                        a region given with length 0 (or none with a length), remote write or atomic access on a
     *                        region without LOCAL_WRITE, a QP that is not RC or UC or does not accept sends;
     *                        EPERM for a region of another PD than the window's; EOPNOTSUPP for access bits a window
     *                        cannot have; ENOMEM when the send queue is full
     */
    int bindMw(MemoryWindow mw, MwBind bind);

    /**
     * Destroys the QP ({@code ibv_destroy_qp}; rdmavt: {@code rvt_destroy_qp}): resets it (no completions are
     * generated), waits for every reference to go, frees its number.
     *
     * @throws VerbsException EBUSY while the QP is attached to a multicast group
     */
    void destroyQp();
}
