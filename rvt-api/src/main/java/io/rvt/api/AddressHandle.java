package io.rvt.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An address handle ({@code struct ib_ah}; rdmavt: {@code struct rvt_ah}): the destination of UD, SMI and GSI send
 * work requests. Posting snapshots its attributes into the send WQE, so modifying or destroying the handle does not
 * affect work already posted.
 */
@ProviderType
public interface AddressHandle {
    /** @return the PD the handle belongs to */
    ProtectionDomain pd();

    /**
     * @param out filled with the handle's attributes ({@code ibv_query_ah})
     * @return {@code out}
     */
    AhAttr queryAh(AhAttr out);

    /**
     * Replaces the attributes ({@code rdma_modify_ah}; rdmavt: {@code rvt_modify_ah}). As in rdmavt, the driver's VL
     * and path-MTU values computed at creation are kept.
     *
     * @param attr the new attributes; copied
     * @throws VerbsException EINVAL if they fail {@code rvt_check_ah}
     */
    void modifyAh(AhAttr attr);

    /** Destroys the handle ({@code ibv_destroy_ah}). */
    void destroyAh();
}
