package io.rvt.api;

/**
 * Address vector ({@code struct rdma_ah_attr}): where packets go. Used by address handles (UD), by a connected QP's
 * primary and alternate path ({@link QpAttrMask#AV}, {@link QpAttrMask#ALT_PATH}), and cached per send WQE.
 *
 * <p>Mutable and reusable; {@link #copyFrom(AhAttr)} copies without allocating. Not thread-safe.
 */
public final class AhAttr {
    /** {@code IB_RATE_PORT_CURRENT}: use the port's current rate. */
    public static final int RATE_PORT_CURRENT = 0;

    private int dlid;
    private int sl;
    private int srcPathBits;
    private int staticRate;
    private int portNum;
    private boolean global;
    private Gid dgid = Gid.ZERO;
    private int flowLabel;
    private int sgidIndex;
    private int hopLimit;
    private int trafficClass;

    /** @return destination LID (IB: 16 bits; OPA: 32 bits) */
    public int dlid() {
        return dlid;
    }

    /**
     * @param dlid destination LID; unsigned, up to 32 bits for OPA
     * @return this
     */
    public AhAttr dlid(int dlid) {
        this.dlid = dlid;
        return this;
    }

    /** @return service level, 0..15 */
    public int sl() {
        return sl;
    }

    /**
     * @param sl service level, 0..15
     * @return this
     */
    public AhAttr sl(int sl) {
        this.sl = Checks.range("sl", sl, 0, 15);
        return this;
    }

    /** @return source path bits (LMC) */
    public int srcPathBits() {
        return srcPathBits;
    }

    /**
     * @param bits source path bits, 0..127
     * @return this
     */
    public AhAttr srcPathBits(int bits) {
        this.srcPathBits = Checks.range("srcPathBits", bits, 0, 127);
        return this;
    }

    /** @return static rate code ({@code enum ib_rate}), 0 = port current */
    public int staticRate() {
        return staticRate;
    }

    /**
     * @param rate static rate code ({@code enum ib_rate}); validity is checked by the verb that uses it
     * @return this
     */
    public AhAttr staticRate(int rate) {
        this.staticRate = Checks.u8("staticRate", rate);
        return this;
    }

    /** @return port number, 1-based */
    public int portNum() {
        return portNum;
    }

    /**
     * @param portNum port number, 1-based; checked against the device by the verb that uses it
     * @return this
     */
    public AhAttr portNum(int portNum) {
        this.portNum = Checks.u8("portNum", portNum);
        return this;
    }

    /** @return true if a GRH is present ({@code IB_AH_GRH}) */
    public boolean isGlobal() {
        return global;
    }

    /**
     * @param global whether the GRH fields apply
     * @return this
     */
    public AhAttr global(boolean global) {
        this.global = global;
        return this;
    }

    /** @return GRH destination GID */
    public Gid dgid() {
        return dgid;
    }

    /**
     * Sets the destination GID and marks the address global.
     *
     * @param dgid destination GID
     * @return this
     */
    public AhAttr dgid(Gid dgid) {
        this.dgid = Checks.notNull("dgid", dgid);
        this.global = true;
        return this;
    }

    /** @return GRH flow label (20 bits) */
    public int flowLabel() {
        return flowLabel;
    }

    /**
     * @param flowLabel GRH flow label, 20 bits
     * @return this
     */
    public AhAttr flowLabel(int flowLabel) {
        this.flowLabel = Checks.range("flowLabel", flowLabel, 0, 0xFFFFF);
        return this;
    }

    /** @return index of the source GID in the port's GID table */
    public int sgidIndex() {
        return sgidIndex;
    }

    /**
     * @param sgidIndex source GID index, 0..255
     * @return this
     */
    public AhAttr sgidIndex(int sgidIndex) {
        this.sgidIndex = Checks.u8("sgidIndex", sgidIndex);
        return this;
    }

    /** @return GRH hop limit */
    public int hopLimit() {
        return hopLimit;
    }

    /**
     * @param hopLimit GRH hop limit, 0..255
     * @return this
     */
    public AhAttr hopLimit(int hopLimit) {
        this.hopLimit = Checks.u8("hopLimit", hopLimit);
        return this;
    }

    /** @return GRH traffic class */
    public int trafficClass() {
        return trafficClass;
    }

    /**
     * @param trafficClass GRH traffic class, 0..255
     * @return this
     */
    public AhAttr trafficClass(int trafficClass) {
        this.trafficClass = Checks.u8("trafficClass", trafficClass);
        return this;
    }

    /**
     * Copies every field of {@code other} into this object (no allocation).
     *
     * @param other the source
     * @return this
     */
    public AhAttr copyFrom(AhAttr other) {
        dlid = other.dlid;
        sl = other.sl;
        srcPathBits = other.srcPathBits;
        staticRate = other.staticRate;
        portNum = other.portNum;
        global = other.global;
        dgid = other.dgid;
        flowLabel = other.flowLabel;
        sgidIndex = other.sgidIndex;
        hopLimit = other.hopLimit;
        trafficClass = other.trafficClass;
        return this;
    }

    /**
     * Resets every field to zero.
     *
     * @return this
     */
    public AhAttr clear() {
        dlid = sl = srcPathBits = staticRate = portNum = flowLabel = sgidIndex = hopLimit = trafficClass = 0;
        global = false;
        dgid = Gid.ZERO;
        return this;
    }

    /**
     * The rate in Mb/s of an {@code enum ib_rate} code, as {@code ib_rate_to_mbps} computes it.
     *
     * @param rate the code
     * @return Mb/s, or -1 if the code is not a valid rate (0, "port current", is also -1)
     */
    public static int rateToMbps(int rate) {
        switch (rate) {
            case 2: return 2500;
            case 5: return 5000;
            case 3: return 10000;
            case 6: return 20000;
            case 4: return 30000;
            case 7: return 40000;
            case 8: return 60000;
            case 9: return 80000;
            case 10: return 120000;
            case 11: return 14062;
            case 12: return 56250;
            case 13: return 112500;
            case 14: return 168750;
            case 15: return 25781;
            case 16: return 103125;
            case 17: return 206250;
            case 18: return 309375;
            case 19: return 28125;
            case 20: return 53125;
            case 21: return 425000;
            case 22: return 637500;
            default: return -1;
        }
    }

    @Override
    public String toString() {
        return "AhAttr{dlid=" + dlid + ", sl=" + sl + ", port=" + portNum
                + (global ? ", dgid=" + dgid + ", sgidIndex=" + sgidIndex + ", hopLimit=" + hopLimit : "") + '}';
    }
}
