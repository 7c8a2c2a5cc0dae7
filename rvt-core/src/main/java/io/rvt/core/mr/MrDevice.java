package io.rvt.core.mr;

import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QueuePair;
import io.rvt.api.SharedReceiveQueue;
import io.rvt.api.SrqInitAttr;
import io.rvt.core.base.CoreDevice;

/**
 * The device as protection domains, regions and windows see it: its lkey table, the objects a PD creates in the
 * packages above this one (built by the device, which knows them), and the one walk over the device's QPs a region's
 * deregistration needs. Implemented by {@code io.rvt.core.RvtDevice}.
 */
public interface MrDevice extends CoreDevice {
    /** @return the lkey table ({@code rdi->lkey_table}) */
    RvtLkeyTable lkeyTable();

    /**
     * Mirrors {@code rvt_create_qp} for {@link RvtPd#createQp}.
     *
     * @param pd the PD
     * @param init the creation attributes
     * @return the QP
     */
    QueuePair createQp(RvtPd pd, QpInitAttr init);

    /**
     * Mirrors {@code rvt_create_srq} for {@link RvtPd#createSrq}.
     *
     * @param pd the PD
     * @param init the creation attributes
     * @return the SRQ
     */
    SharedReceiveQueue createSrq(RvtPd pd, SrqInitAttr init);

    /**
     * Mirrors {@code rvt_create_ah} for {@link RvtPd#createAh}.
     *
     * @param pd the PD
     * @param attr the address
     * @return the address handle
     */
    AddressHandle createAh(RvtPd pd, AhAttr attr);

    /**
     * Mirrors {@code rvt_dereg_clean_qps}: every QP of {@code pd} drops the references it keeps to the region
     * {@code lkey} ({@code rvt_qp_mr_clean}).
     *
     * @param pd the region's PD
     * @param lkey the region's lkey
     */
    void deregCleanQps(RvtPd pd, int lkey);
}
