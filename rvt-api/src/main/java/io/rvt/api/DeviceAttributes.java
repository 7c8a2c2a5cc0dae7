package io.rvt.api;

/**
 * Device attributes ({@code struct ib_device_attr}, carried in rdmavt's {@code rvt_driver_params.props}): identity and
 * the limits rdmavt enforces when objects are created. Immutable; build with {@link #builder()}.
 */
public final class DeviceAttributes {
    /**
     * {@code IB_DEVICE_MEM_WINDOW} ({@code IBV_DEVICE_MEM_WINDOW}, bit 17) in {@link #deviceCapFlags()}: memory
     * windows ({@link ProtectionDomain#allocMw}). rvt-core sets it when the driver's operation table has
     * {@link WrOpcode#BIND_MW}, as rxe does.
     */
    public static final long DEVICE_MEM_WINDOW = 1L << 17;
    /** {@code IB_DEVICE_MEM_WINDOW_TYPE_2B} (bit 24): type 2B windows; set with {@link #DEVICE_MEM_WINDOW}. */
    public static final long DEVICE_MEM_WINDOW_TYPE_2B = 1L << 24;
    /**
     * {@code IB_DEVICE_FLUSH_GLOBAL} ({@code IB_UVERBS_DEVICE_FLUSH_GLOBAL}, bit 38, Linux 6.2): FLUSH with the global
     * visibility placement type; set by rvt-core when the operation table has {@link WrOpcode#FLUSH}.
     */
    public static final long DEVICE_FLUSH_GLOBAL = 1L << 38;
    /** {@code IB_DEVICE_FLUSH_PERSISTENT} (bit 39): FLUSH to persistence; rvt never sets it (no persistent memory). */
    public static final long DEVICE_FLUSH_PERSISTENT = 1L << 39;
    /**
     * {@code IB_DEVICE_ATOMIC_WRITE} ({@code IB_UVERBS_DEVICE_ATOMIC_WRITE}, bit 40, Linux 6.2): ATOMIC_WRITE; set by
     * rvt-core when the operation table has {@link WrOpcode#ATOMIC_WRITE}.
     */
    public static final long DEVICE_ATOMIC_WRITE = 1L << 40;

    private final long fwVer;
    private final long nodeGuid;
    private final long sysImageGuid;
    private final long maxMrSize;
    private final long pageSizeCap;
    private final int vendorId;
    private final int vendorPartId;
    private final int hwVer;
    private final int maxQp;
    private final int maxQpWr;
    private final long deviceCapFlags;
    private final int maxSendSge;
    private final int maxRecvSge;
    private final int maxSgeRd;
    private final int maxCq;
    private final int maxCqe;
    private final int maxMr;
    private final int maxPd;
    private final int maxQpRdAtom;
    private final int maxResRdAtom;
    private final int maxQpInitRdAtom;
    private final int atomicCap;
    private final int maxMcastGrp;
    private final int maxMcastQpAttach;
    private final int maxTotalMcastQpAttach;
    private final int maxAh;
    private final int maxSrq;
    private final int maxSrqWr;
    private final int maxSrqSge;
    private final int maxPkeys;
    private final int localCaAckDelay;

    private DeviceAttributes(Builder b) {
        this.fwVer = b.fwVer;
        this.nodeGuid = b.nodeGuid;
        this.sysImageGuid = b.sysImageGuid;
        this.maxMrSize = b.maxMrSize;
        this.pageSizeCap = b.pageSizeCap;
        this.vendorId = b.vendorId;
        this.vendorPartId = b.vendorPartId;
        this.hwVer = b.hwVer;
        this.maxQp = b.maxQp;
        this.maxQpWr = b.maxQpWr;
        this.deviceCapFlags = b.deviceCapFlags;
        this.maxSendSge = b.maxSendSge;
        this.maxRecvSge = b.maxRecvSge;
        this.maxSgeRd = b.maxSgeRd;
        this.maxCq = b.maxCq;
        this.maxCqe = b.maxCqe;
        this.maxMr = b.maxMr;
        this.maxPd = b.maxPd;
        this.maxQpRdAtom = b.maxQpRdAtom;
        this.maxResRdAtom = b.maxResRdAtom;
        this.maxQpInitRdAtom = b.maxQpInitRdAtom;
        this.atomicCap = b.atomicCap;
        this.maxMcastGrp = b.maxMcastGrp;
        this.maxMcastQpAttach = b.maxMcastQpAttach;
        this.maxTotalMcastQpAttach = b.maxTotalMcastQpAttach;
        this.maxAh = b.maxAh;
        this.maxSrq = b.maxSrq;
        this.maxSrqWr = b.maxSrqWr;
        this.maxSrqSge = b.maxSrqSge;
        this.maxPkeys = b.maxPkeys;
        this.localCaAckDelay = b.localCaAckDelay;
    }

    /** @return a builder with every field 0 */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding this object's values */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.fwVer = fwVer;
        b.nodeGuid = nodeGuid;
        b.sysImageGuid = sysImageGuid;
        b.maxMrSize = maxMrSize;
        b.pageSizeCap = pageSizeCap;
        b.vendorId = vendorId;
        b.vendorPartId = vendorPartId;
        b.hwVer = hwVer;
        b.maxQp = maxQp;
        b.maxQpWr = maxQpWr;
        b.deviceCapFlags = deviceCapFlags;
        b.maxSendSge = maxSendSge;
        b.maxRecvSge = maxRecvSge;
        b.maxSgeRd = maxSgeRd;
        b.maxCq = maxCq;
        b.maxCqe = maxCqe;
        b.maxMr = maxMr;
        b.maxPd = maxPd;
        b.maxQpRdAtom = maxQpRdAtom;
        b.maxResRdAtom = maxResRdAtom;
        b.maxQpInitRdAtom = maxQpInitRdAtom;
        b.atomicCap = atomicCap;
        b.maxMcastGrp = maxMcastGrp;
        b.maxMcastQpAttach = maxMcastQpAttach;
        b.maxTotalMcastQpAttach = maxTotalMcastQpAttach;
        b.maxAh = maxAh;
        b.maxSrq = maxSrq;
        b.maxSrqWr = maxSrqWr;
        b.maxSrqSge = maxSrqSge;
        b.maxPkeys = maxPkeys;
        b.localCaAckDelay = localCaAckDelay;
        return b;
    }

    /** @return firmware version ({@code fw_ver}) */
    public long fwVer() {
        return fwVer;
    }

    /** @return node GUID ({@code ib_device.node_guid}) */
    public long nodeGuid() {
        return nodeGuid;
    }

    /** @return system image GUID ({@code sys_image_guid}) */
    public long sysImageGuid() {
        return sysImageGuid;
    }

    /**
     * A GUID as ibverbs prints it ({@code ibv_devinfo}'s {@code node_guid}): four groups of four hex digits,
     * {@code 0052:5654:0010:0010}. Every place rvt shows a node or system image GUID uses this form.
     *
     * @param guid a GUID (host order)
     * @return it in ibverbs' form
     */
    public static String formatGuid(long guid) {
        char[] out = new char[19];
        for (int group = 0, at = 0; group < 4; group++) {
            for (int shift = 60 - group * 16, end = shift - 16; shift > end; shift -= 4) {
                out[at++] = Character.forDigit((int) (guid >>> shift) & 0xF, 16);
            }
            if (group < 3) {
                out[at++] = ':';
            }
        }
        return new String(out);
    }

    /** @return largest region in bytes ({@code max_mr_size}) */
    public long maxMrSize() {
        return maxMrSize;
    }

    /** @return supported page sizes ({@code page_size_cap}) */
    public long pageSizeCap() {
        return pageSizeCap;
    }

    /** @return vendor id ({@code vendor_id}) */
    public int vendorId() {
        return vendorId;
    }

    /** @return vendor part id ({@code vendor_part_id}) */
    public int vendorPartId() {
        return vendorPartId;
    }

    /** @return hardware version ({@code hw_ver}) */
    public int hwVer() {
        return hwVer;
    }

    /** @return most QPs ({@code max_qp}) */
    public int maxQp() {
        return maxQp;
    }

    /** @return most work requests per queue ({@code max_qp_wr}) */
    public int maxQpWr() {
        return maxQpWr;
    }

    /** @return capability flags ({@code device_cap_flags}) */
    public long deviceCapFlags() {
        return deviceCapFlags;
    }

    /** @return most SGEs per send work request ({@code max_send_sge}) */
    public int maxSendSge() {
        return maxSendSge;
    }

    /** @return most SGEs per receive work request ({@code max_recv_sge}) */
    public int maxRecvSge() {
        return maxRecvSge;
    }

    /** @return most SGEs per RDMA READ ({@code max_sge_rd}) */
    public int maxSgeRd() {
        return maxSgeRd;
    }

    /** @return most CQs ({@code max_cq}) */
    public int maxCq() {
        return maxCq;
    }

    /** @return most completions per CQ ({@code max_cqe}) */
    public int maxCqe() {
        return maxCqe;
    }

    /** @return most memory regions ({@code max_mr}; rdmavt overwrites it with the lkey table size) */
    public int maxMr() {
        return maxMr;
    }

    /** @return most PDs ({@code max_pd}) */
    public int maxPd() {
        return maxPd;
    }

    /** @return most incoming RDMA READ/atomics per QP ({@code max_qp_rd_atom}) */
    public int maxQpRdAtom() {
        return maxQpRdAtom;
    }

    /** @return most incoming RDMA READ/atomics per device ({@code max_res_rd_atom}) */
    public int maxResRdAtom() {
        return maxResRdAtom;
    }

    /** @return most outgoing RDMA READ/atomics per QP ({@code max_qp_init_rd_atom}) */
    public int maxQpInitRdAtom() {
        return maxQpInitRdAtom;
    }

    /** @return atomic capability ({@code atomic_cap}: 0 none, 1 HCA, 2 global) */
    public int atomicCap() {
        return atomicCap;
    }

    /** @return most multicast groups ({@code max_mcast_grp}) */
    public int maxMcastGrp() {
        return maxMcastGrp;
    }

    /** @return most QPs per multicast group ({@code max_mcast_qp_attach}) */
    public int maxMcastQpAttach() {
        return maxMcastQpAttach;
    }

    /** @return most multicast attachments ({@code max_total_mcast_qp_attach}) */
    public int maxTotalMcastQpAttach() {
        return maxTotalMcastQpAttach;
    }

    /** @return most address handles ({@code max_ah}) */
    public int maxAh() {
        return maxAh;
    }

    /** @return most SRQs ({@code max_srq}) */
    public int maxSrq() {
        return maxSrq;
    }

    /** @return most work requests per SRQ ({@code max_srq_wr}) */
    public int maxSrqWr() {
        return maxSrqWr;
    }

    /** @return most SGEs per SRQ work request ({@code max_srq_sge}) */
    public int maxSrqSge() {
        return maxSrqSge;
    }

    /** @return P_Key table length ({@code max_pkeys}) */
    public int maxPkeys() {
        return maxPkeys;
    }

    /** @return local CA ACK delay code ({@code local_ca_ack_delay}) */
    public int localCaAckDelay() {
        return localCaAckDelay;
    }

    @Override
    public String toString() {
        return "DeviceAttributes{nodeGuid=" + formatGuid(nodeGuid) + ", maxQp=" + maxQp + ", maxQpWr=" + maxQpWr
                + ", maxCq=" + maxCq + ", maxCqe=" + maxCqe + ", maxMr=" + maxMr + ", maxPd=" + maxPd + '}';
    }

    /** Builds {@link DeviceAttributes}; setters reject negative limits, naming the field. */
    public static final class Builder {
        private long fwVer;
        private long nodeGuid;
        private long sysImageGuid;
        private long maxMrSize;
        private long pageSizeCap;
        private int vendorId;
        private int vendorPartId;
        private int hwVer;
        private int maxQp;
        private int maxQpWr;
        private long deviceCapFlags;
        private int maxSendSge;
        private int maxRecvSge;
        private int maxSgeRd;
        private int maxCq;
        private int maxCqe;
        private int maxMr;
        private int maxPd;
        private int maxQpRdAtom;
        private int maxResRdAtom;
        private int maxQpInitRdAtom;
        private int atomicCap;
        private int maxMcastGrp;
        private int maxMcastQpAttach;
        private int maxTotalMcastQpAttach;
        private int maxAh;
        private int maxSrq;
        private int maxSrqWr;
        private int maxSrqSge;
        private int maxPkeys;
        private int localCaAckDelay;

        private Builder() {
        }

        /**
         * @param v firmware version ({@code fw_ver})
         * @return this
         */
        public Builder fwVer(long v) {
            this.fwVer = v;
            return this;
        }

        /**
         * @param v node GUID ({@code ib_device.node_guid})
         * @return this
         */
        public Builder nodeGuid(long v) {
            this.nodeGuid = v;
            return this;
        }

        /**
         * @param v system image GUID ({@code sys_image_guid})
         * @return this
         */
        public Builder sysImageGuid(long v) {
            this.sysImageGuid = v;
            return this;
        }

        /**
         * @param v largest region in bytes ({@code max_mr_size})
         * @return this
         */
        public Builder maxMrSize(long v) {
            this.maxMrSize = v;
            return this;
        }

        /**
         * @param v supported page sizes ({@code page_size_cap})
         * @return this
         */
        public Builder pageSizeCap(long v) {
            this.pageSizeCap = v;
            return this;
        }

        /**
         * @param v vendor id ({@code vendor_id})
         * @return this
         */
        public Builder vendorId(int v) {
            this.vendorId = v;
            return this;
        }

        /**
         * @param v vendor part id ({@code vendor_part_id})
         * @return this
         */
        public Builder vendorPartId(int v) {
            this.vendorPartId = v;
            return this;
        }

        /**
         * @param v hardware version ({@code hw_ver})
         * @return this
         */
        public Builder hwVer(int v) {
            this.hwVer = v;
            return this;
        }

        /**
         * @param v most QPs ({@code max_qp})
         * @return this
         */
        public Builder maxQp(int v) {
            this.maxQp = Checks.nonNegative("maxQp", v);
            return this;
        }

        /**
         * @param v most work requests per queue ({@code max_qp_wr})
         * @return this
         */
        public Builder maxQpWr(int v) {
            this.maxQpWr = Checks.nonNegative("maxQpWr", v);
            return this;
        }

        /**
         * @param v capability flags ({@code device_cap_flags})
         * @return this
         */
        public Builder deviceCapFlags(long v) {
            this.deviceCapFlags = v;
            return this;
        }

        /**
         * @param v most SGEs per send work request ({@code max_send_sge})
         * @return this
         */
        public Builder maxSendSge(int v) {
            this.maxSendSge = Checks.nonNegative("maxSendSge", v);
            return this;
        }

        /**
         * @param v most SGEs per receive work request ({@code max_recv_sge})
         * @return this
         */
        public Builder maxRecvSge(int v) {
            this.maxRecvSge = Checks.nonNegative("maxRecvSge", v);
            return this;
        }

        /**
         * @param v most SGEs per RDMA READ ({@code max_sge_rd})
         * @return this
         */
        public Builder maxSgeRd(int v) {
            this.maxSgeRd = Checks.nonNegative("maxSgeRd", v);
            return this;
        }

        /**
         * @param v most CQs ({@code max_cq})
         * @return this
         */
        public Builder maxCq(int v) {
            this.maxCq = Checks.nonNegative("maxCq", v);
            return this;
        }

        /**
         * @param v most completions per CQ ({@code max_cqe})
         * @return this
         */
        public Builder maxCqe(int v) {
            this.maxCqe = Checks.nonNegative("maxCqe", v);
            return this;
        }

        /**
         * @param v most memory regions ({@code max_mr}; rdmavt overwrites it with the lkey table size)
         * @return this
         */
        public Builder maxMr(int v) {
            this.maxMr = Checks.nonNegative("maxMr", v);
            return this;
        }

        /**
         * @param v most PDs ({@code max_pd})
         * @return this
         */
        public Builder maxPd(int v) {
            this.maxPd = Checks.nonNegative("maxPd", v);
            return this;
        }

        /**
         * @param v most incoming RDMA READ/atomics per QP ({@code max_qp_rd_atom})
         * @return this
         */
        public Builder maxQpRdAtom(int v) {
            this.maxQpRdAtom = Checks.nonNegative("maxQpRdAtom", v);
            return this;
        }

        /**
         * @param v most incoming RDMA READ/atomics per device ({@code max_res_rd_atom})
         * @return this
         */
        public Builder maxResRdAtom(int v) {
            this.maxResRdAtom = Checks.nonNegative("maxResRdAtom", v);
            return this;
        }

        /**
         * @param v most outgoing RDMA READ/atomics per QP ({@code max_qp_init_rd_atom})
         * @return this
         */
        public Builder maxQpInitRdAtom(int v) {
            this.maxQpInitRdAtom = Checks.nonNegative("maxQpInitRdAtom", v);
            return this;
        }

        /**
         * @param v atomic capability ({@code atomic_cap}: 0 none, 1 HCA, 2 global)
         * @return this
         */
        public Builder atomicCap(int v) {
            this.atomicCap = Checks.nonNegative("atomicCap", v);
            return this;
        }

        /**
         * @param v most multicast groups ({@code max_mcast_grp})
         * @return this
         */
        public Builder maxMcastGrp(int v) {
            this.maxMcastGrp = Checks.nonNegative("maxMcastGrp", v);
            return this;
        }

        /**
         * @param v most QPs per multicast group ({@code max_mcast_qp_attach})
         * @return this
         */
        public Builder maxMcastQpAttach(int v) {
            this.maxMcastQpAttach = Checks.nonNegative("maxMcastQpAttach", v);
            return this;
        }

        /**
         * @param v most multicast attachments ({@code max_total_mcast_qp_attach})
         * @return this
         */
        public Builder maxTotalMcastQpAttach(int v) {
            this.maxTotalMcastQpAttach = Checks.nonNegative("maxTotalMcastQpAttach", v);
            return this;
        }

        /**
         * @param v most address handles ({@code max_ah})
         * @return this
         */
        public Builder maxAh(int v) {
            this.maxAh = Checks.nonNegative("maxAh", v);
            return this;
        }

        /**
         * @param v most SRQs ({@code max_srq})
         * @return this
         */
        public Builder maxSrq(int v) {
            this.maxSrq = Checks.nonNegative("maxSrq", v);
            return this;
        }

        /**
         * @param v most work requests per SRQ ({@code max_srq_wr})
         * @return this
         */
        public Builder maxSrqWr(int v) {
            this.maxSrqWr = Checks.nonNegative("maxSrqWr", v);
            return this;
        }

        /**
         * @param v most SGEs per SRQ work request ({@code max_srq_sge})
         * @return this
         */
        public Builder maxSrqSge(int v) {
            this.maxSrqSge = Checks.nonNegative("maxSrqSge", v);
            return this;
        }

        /**
         * @param v P_Key table length ({@code max_pkeys})
         * @return this
         */
        public Builder maxPkeys(int v) {
            this.maxPkeys = Checks.nonNegative("maxPkeys", v);
            return this;
        }

        /**
         * @param v local CA ACK delay code ({@code local_ca_ack_delay})
         * @return this
         */
        public Builder localCaAckDelay(int v) {
            this.localCaAckDelay = Checks.nonNegative("localCaAckDelay", v);
            return this;
        }

        /** @return the attributes */
        public DeviceAttributes build() {
            return new DeviceAttributes(this);
        }
    }
}
