package io.rvt.api.spi;

import io.rvt.api.DeviceAttributes;

/**
 * What a driver tells rdmavt about its device ({@code struct rvt_driver_params}, the {@code dparms} of
 * {@code struct rvt_dev_info}), with the device attributes it carries ({@code props}) and the number of completion
 * vectors ({@code ibdev.num_comp_vectors}). Immutable; build with {@link #builder()}.
 *
 * <p>The builder accepts any value: rvt-core validates the parameters once, at registration, and refuses a bad one
 * with an error naming the driver and the field (as {@code rvt_register_device} does, but with the name).
 *
 * <p>Derived: {@link #maxAtomic()} ({@code rvt_max_atomic}) and {@link #sizeAtomic()} ({@code rvt_size_atomic}).
 */
public final class DriverParams {
    /** {@code RDMA_CORE_CAP_OPA_AH}: OPA address handles (unicast DLIDs go up to {@code 0xF0000000}). */
    public static final int CORE_CAP_OPA_AH = 0x00004000;
    /** {@code sge_copy_mode} MEMCPY. */
    public static final int SGE_COPY_MEMCPY = 0;
    /** {@code sge_copy_mode} CACHELESS. */
    public static final int SGE_COPY_CACHELESS = 1;
    /** {@code sge_copy_mode} ADAPTIVE. */
    public static final int SGE_COPY_ADAPTIVE = 2;

    private final DeviceAttributes props;
    private final int lkeyTableSize;
    private final int qpTableSize;
    private final int sgeCopyMode;
    private final int wssThreshold;
    private final int wssCleanPeriod;
    private final int qpnStart;
    private final int qpnInc;
    private final int qpnResStart;
    private final int qpnResEnd;
    private final int nports;
    private final int npkeys;
    private final int node;
    private final int psnMask;
    private final int psnShift;
    private final int psnModifyMask;
    private final int coreCapFlags;
    private final int maxMadSize;
    private final int qosShift;
    private final int maxRdmaAtomic;
    private final int extraRdmaAtomic;
    private final int reservedOperations;
    private final int numCompVectors;

    private DriverParams(Builder b) {
        this.props = b.props;
        this.lkeyTableSize = b.lkeyTableSize;
        this.qpTableSize = b.qpTableSize;
        this.sgeCopyMode = b.sgeCopyMode;
        this.wssThreshold = b.wssThreshold;
        this.wssCleanPeriod = b.wssCleanPeriod;
        this.qpnStart = b.qpnStart;
        this.qpnInc = b.qpnInc;
        this.qpnResStart = b.qpnResStart;
        this.qpnResEnd = b.qpnResEnd;
        this.nports = b.nports;
        this.npkeys = b.npkeys;
        this.node = b.node;
        this.psnMask = b.psnMask;
        this.psnShift = b.psnShift;
        this.psnModifyMask = b.psnModifyMask;
        this.coreCapFlags = b.coreCapFlags;
        this.maxMadSize = b.maxMadSize;
        this.qosShift = b.qosShift;
        this.maxRdmaAtomic = b.maxRdmaAtomic;
        this.extraRdmaAtomic = b.extraRdmaAtomic;
        this.reservedOperations = b.reservedOperations;
        this.numCompVectors = b.numCompVectors;
    }

    /** @return a builder with rdmavt's defaults (empty props, tables of size 0) */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding these values */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.props = props;
        b.lkeyTableSize = lkeyTableSize;
        b.qpTableSize = qpTableSize;
        b.sgeCopyMode = sgeCopyMode;
        b.wssThreshold = wssThreshold;
        b.wssCleanPeriod = wssCleanPeriod;
        b.qpnStart = qpnStart;
        b.qpnInc = qpnInc;
        b.qpnResStart = qpnResStart;
        b.qpnResEnd = qpnResEnd;
        b.nports = nports;
        b.npkeys = npkeys;
        b.node = node;
        b.psnMask = psnMask;
        b.psnShift = psnShift;
        b.psnModifyMask = psnModifyMask;
        b.coreCapFlags = coreCapFlags;
        b.maxMadSize = maxMadSize;
        b.qosShift = qosShift;
        b.maxRdmaAtomic = maxRdmaAtomic;
        b.extraRdmaAtomic = extraRdmaAtomic;
        b.reservedOperations = reservedOperations;
        b.numCompVectors = numCompVectors;
        return b;
    }

    /** @return {@code props}: the device attributes reported by {@code queryDevice} and the limits rdmavt enforces ({@code max_qp}, {@code max_qp_wr}, {@code max_send_sge}, {@code max_recv_sge}, {@code max_cqe}, {@code max_cq}, {@code max_pd}, {@code max_ah}, {@code max_srq}, {@code max_srq_wr}, {@code max_srq_sge}, {@code max_mcast_grp}, {@code max_mcast_qp_attach}); {@code max_mr} is overwritten with the lkey table size */
    public DeviceAttributes props() {
        return props;
    }

    /** @return {@code lkey_table_size}: bits of the lkey index: 0 fails registration, values above 23 are clamped to 23 */
    public int lkeyTableSize() {
        return lkeyTableSize;
    }

    /** @return {@code qp_table_size}: buckets of the QP hash table (a power of two; 0 fails registration) */
    public int qpTableSize() {
        return qpTableSize;
    }

    /** @return {@code sge_copy_mode}: 0 MEMCPY, 1 CACHELESS, 2 ADAPTIVE (only the data result matters in rvt) */
    public int sgeCopyMode() {
        return sgeCopyMode;
    }

    /** @return {@code wss_threshold}: percent of the last-level cache for the adaptive copy mode (outside 1..100: 80) */
    public int wssThreshold() {
        return wssThreshold;
    }

    /** @return {@code wss_clean_period}: copies between cleanings of the working-set estimator */
    public int wssCleanPeriod() {
        return wssCleanPeriod;
    }

    /** @return {@code qpn_start}: initial {@code last} of the QPN allocator */
    public int qpnStart() {
        return qpnStart;
    }

    /** @return {@code qpn_inc}: base QPN increment; the allocator steps by {@code qpn_inc << qos_shift} */
    public int qpnInc() {
        return qpnInc;
    }

    /** @return {@code qpn_res_start}: first QPN of the range reserved for the driver (never handed out to verbs) */
    public int qpnResStart() {
        return qpnResStart;
    }

    /** @return {@code qpn_res_end}: last QPN of that range (inclusive; must be at least {@code qpn_res_start}) */
    public int qpnResEnd() {
        return qpnResEnd;
    }

    /** @return {@code nports}: number of ports */
    public int nports() {
        return nports;
    }

    /** @return {@code npkeys}: P_Key table length of every port */
    public int npkeys() {
        return npkeys;
    }

    /** @return {@code node}: NUMA node (the default completion-vector mapping uses it) */
    public int node() {
        return node;
    }

    /** @return {@code psn_mask}: mask applied to PSNs reported by {@code queryQp} */
    public int psnMask() {
        return psnMask;
    }

    /** @return {@code psn_shift}: shift the driver's PSN compare uses (not used by rdmavt) */
    public int psnShift() {
        return psnShift;
    }

    /** @return {@code psn_modify_mask}: mask applied to {@code sq_psn}/{@code rq_psn} by {@code modifyQp} */
    public int psnModifyMask() {
        return psnModifyMask;
    }

    /** @return {@code core_cap_flags}: port immutable capability flags (e.g. {@link #CORE_CAP_OPA_AH}) */
    public int coreCapFlags() {
        return coreCapFlags;
    }

    /** @return {@code max_mad_size}: largest MAD in bytes (IB 256, OPA 2048) */
    public int maxMadSize() {
        return maxMadSize;
    }

    /** @return {@code qos_shift}: QPN bits used for QoS */
    public int qosShift() {
        return qosShift;
    }

    /** @return {@code max_rdma_atomic}: most outstanding incoming RDMA READ/atomics per QP; the bound of {@code max_dest_rd_atomic} */
    public int maxRdmaAtomic() {
        return maxRdmaAtomic;
    }

    /** @return {@code extra_rdma_atomic}: extra ack-queue entries hidden from the user */
    public int extraRdmaAtomic() {
        return extraRdmaAtomic;
    }

    /** @return {@code reserved_operations}: send slots per QP kept for {@link OperationFlag#USE_RESERVE} operations */
    public int reservedOperations() {
        return reservedOperations;
    }

    /** @return {@code ibdev.num_comp_vectors}: completion vectors (0 means 1) */
    public int numCompVectors() {
        return numCompVectors;
    }

    /** @return {@code rvt_max_atomic}: {@code max_rdma_atomic + extra_rdma_atomic + 1}, the RC ack-queue length */
    public int maxAtomic() {
        return maxRdmaAtomic + extraRdmaAtomic + 1;
    }

    /** @return {@code rvt_size_atomic}: {@code max_rdma_atomic + extra_rdma_atomic} */
    public int sizeAtomic() {
        return maxRdmaAtomic + extraRdmaAtomic;
    }

    @Override
    public String toString() {
        return "DriverParams{lkeyTableSize=" + lkeyTableSize + ", qpTableSize=" + qpTableSize + ", nports=" + nports
                + ", npkeys=" + npkeys + ", reservedOperations=" + reservedOperations + ", props=" + props + '}';
    }

    /** Builds {@link DriverParams}. */
    public static final class Builder {
        private DeviceAttributes props = DeviceAttributes.builder().build();
        private int lkeyTableSize = 0;
        private int qpTableSize = 0;
        private int sgeCopyMode = 0;
        private int wssThreshold = 0;
        private int wssCleanPeriod = 0;
        private int qpnStart = 0;
        private int qpnInc = 1;
        private int qpnResStart = 0;
        private int qpnResEnd = 0;
        private int nports = 1;
        private int npkeys = 1;
        private int node = 0;
        private int psnMask = 0xFFFFFF;
        private int psnShift = 8;
        private int psnModifyMask = 0xFFFFFF;
        private int coreCapFlags = 0;
        private int maxMadSize = 256;
        private int qosShift = 0;
        private int maxRdmaAtomic = 16;
        private int extraRdmaAtomic = 0;
        private int reservedOperations = 0;
        private int numCompVectors = 1;

        private Builder() {
        }

        /**
         * @param v {@code props}: the device attributes reported by {@code queryDevice} and the limits rdmavt enforces ({@code max_qp}, {@code max_qp_wr}, {@code max_send_sge}, {@code max_recv_sge}, {@code max_cqe}, {@code max_cq}, {@code max_pd}, {@code max_ah}, {@code max_srq}, {@code max_srq_wr}, {@code max_srq_sge}, {@code max_mcast_grp}, {@code max_mcast_qp_attach}); {@code max_mr} is overwritten with the lkey table size
         * @return this
         */
        public Builder props(DeviceAttributes v) {
            this.props = v;
            return this;
        }

        /**
         * @param v {@code lkey_table_size}: bits of the lkey index: 0 fails registration, values above 23 are clamped to 23
         * @return this
         */
        public Builder lkeyTableSize(int v) {
            this.lkeyTableSize = v;
            return this;
        }

        /**
         * @param v {@code qp_table_size}: buckets of the QP hash table (a power of two; 0 fails registration)
         * @return this
         */
        public Builder qpTableSize(int v) {
            this.qpTableSize = v;
            return this;
        }

        /**
         * @param v {@code sge_copy_mode}: 0 MEMCPY, 1 CACHELESS, 2 ADAPTIVE (only the data result matters in rvt)
         * @return this
         */
        public Builder sgeCopyMode(int v) {
            this.sgeCopyMode = v;
            return this;
        }

        /**
         * @param v {@code wss_threshold}: percent of the last-level cache for the adaptive copy mode (outside 1..100: 80)
         * @return this
         */
        public Builder wssThreshold(int v) {
            this.wssThreshold = v;
            return this;
        }

        /**
         * @param v {@code wss_clean_period}: copies between cleanings of the working-set estimator
         * @return this
         */
        public Builder wssCleanPeriod(int v) {
            this.wssCleanPeriod = v;
            return this;
        }

        /**
         * @param v {@code qpn_start}: initial {@code last} of the QPN allocator
         * @return this
         */
        public Builder qpnStart(int v) {
            this.qpnStart = v;
            return this;
        }

        /**
         * @param v {@code qpn_inc}: base QPN increment; the allocator steps by {@code qpn_inc << qos_shift}
         * @return this
         */
        public Builder qpnInc(int v) {
            this.qpnInc = v;
            return this;
        }

        /**
         * @param v {@code qpn_res_start}: first QPN of the range reserved for the driver (never handed out to verbs)
         * @return this
         */
        public Builder qpnResStart(int v) {
            this.qpnResStart = v;
            return this;
        }

        /**
         * @param v {@code qpn_res_end}: last QPN of that range (inclusive; must be at least {@code qpn_res_start})
         * @return this
         */
        public Builder qpnResEnd(int v) {
            this.qpnResEnd = v;
            return this;
        }

        /**
         * @param v {@code nports}: number of ports
         * @return this
         */
        public Builder nports(int v) {
            this.nports = v;
            return this;
        }

        /**
         * @param v {@code npkeys}: P_Key table length of every port
         * @return this
         */
        public Builder npkeys(int v) {
            this.npkeys = v;
            return this;
        }

        /**
         * @param v {@code node}: NUMA node (the default completion-vector mapping uses it)
         * @return this
         */
        public Builder node(int v) {
            this.node = v;
            return this;
        }

        /**
         * @param v {@code psn_mask}: mask applied to PSNs reported by {@code queryQp}
         * @return this
         */
        public Builder psnMask(int v) {
            this.psnMask = v;
            return this;
        }

        /**
         * @param v {@code psn_shift}: shift the driver's PSN compare uses (not used by rdmavt)
         * @return this
         */
        public Builder psnShift(int v) {
            this.psnShift = v;
            return this;
        }

        /**
         * @param v {@code psn_modify_mask}: mask applied to {@code sq_psn}/{@code rq_psn} by {@code modifyQp}
         * @return this
         */
        public Builder psnModifyMask(int v) {
            this.psnModifyMask = v;
            return this;
        }

        /**
         * @param v {@code core_cap_flags}: port immutable capability flags (e.g. {@link #CORE_CAP_OPA_AH})
         * @return this
         */
        public Builder coreCapFlags(int v) {
            this.coreCapFlags = v;
            return this;
        }

        /**
         * @param v {@code max_mad_size}: largest MAD in bytes (IB 256, OPA 2048)
         * @return this
         */
        public Builder maxMadSize(int v) {
            this.maxMadSize = v;
            return this;
        }

        /**
         * @param v {@code qos_shift}: QPN bits used for QoS
         * @return this
         */
        public Builder qosShift(int v) {
            this.qosShift = v;
            return this;
        }

        /**
         * @param v {@code max_rdma_atomic}: most outstanding incoming RDMA READ/atomics per QP; the bound of {@code max_dest_rd_atomic}
         * @return this
         */
        public Builder maxRdmaAtomic(int v) {
            this.maxRdmaAtomic = v;
            return this;
        }

        /**
         * @param v {@code extra_rdma_atomic}: extra ack-queue entries hidden from the user
         * @return this
         */
        public Builder extraRdmaAtomic(int v) {
            this.extraRdmaAtomic = v;
            return this;
        }

        /**
         * @param v {@code reserved_operations}: send slots per QP kept for {@link OperationFlag#USE_RESERVE} operations
         * @return this
         */
        public Builder reservedOperations(int v) {
            this.reservedOperations = v;
            return this;
        }

        /**
         * @param v {@code ibdev.num_comp_vectors}: completion vectors (0 means 1)
         * @return this
         */
        public Builder numCompVectors(int v) {
            this.numCompVectors = v;
            return this;
        }

        /** @return the parameters (not yet validated; registration validates) */
        public DriverParams build() {
            return new DriverParams(this);
        }
    }
}
