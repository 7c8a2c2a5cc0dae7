package io.rvt.api;

/**
 * Per-device object counts ({@code struct rvt_dev_info}'s {@code n_*_allocated}), checked against the device limits
 * at creation. Read with {@link Device#deviceCounter(DeviceCounter)}.
 */
public enum DeviceCounter {
    /** {@code n_pds_allocated}. */
    PDS_ALLOCATED,
    /** {@code n_ahs_allocated}. */
    AHS_ALLOCATED,
    /** {@code n_srqs_allocated}. */
    SRQS_ALLOCATED,
    /** {@code n_qps_allocated}. */
    QPS_ALLOCATED,
    /** {@code n_rc_qps}. */
    RC_QPS,
    /** {@code n_cqs_allocated}. */
    CQS_ALLOCATED,
    /** {@code n_mcast_grps_allocated}. */
    MCAST_GRPS_ALLOCATED,
    /** Memory regions registered. */
    MRS_ALLOCATED
}
