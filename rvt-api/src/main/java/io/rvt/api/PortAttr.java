package io.rvt.api;

/**
 * Port attributes ({@code struct ib_port_attr}) filled by {@link Device#queryPort}: rdmavt's part (SM, capability,
 * counters) and the driver's ({@code query_port_state}: state, LID, MTU, link). Mutable and reusable.
 */
public final class PortAttr {
    private PortState state = PortState.DOWN;
    private PathMtu maxMtu = PathMtu.MTU_4096;
    private PathMtu activeMtu = PathMtu.MTU_4096;
    private int gidTblLen;
    private int portCapFlags;
    private long maxMsgSz;
    private int badPkeyCntr;
    private int qkeyViolCntr;
    private int pkeyTblLen;
    private int lid;
    private int smLid;
    private int lmc;
    private int maxVlNum;
    private int smSl;
    private int subnetTimeout;
    private int initTypeReply;
    private int activeWidth;
    private int activeSpeed;
    private int physState;

    /** @return logical port state */
    public PortState state() {
        return state;
    }

    /**
     * @param v logical port state
     * @return this
     */
    public PortAttr state(PortState v) {
        this.state = Checks.notNull("state", v);
        return this;
    }

    /** @return largest MTU the port supports */
    public PathMtu maxMtu() {
        return maxMtu;
    }

    /**
     * @param v largest MTU the port supports
     * @return this
     */
    public PortAttr maxMtu(PathMtu v) {
        this.maxMtu = Checks.notNull("maxMtu", v);
        return this;
    }

    /** @return MTU in use */
    public PathMtu activeMtu() {
        return activeMtu;
    }

    /**
     * @param v MTU in use
     * @return this
     */
    public PortAttr activeMtu(PathMtu v) {
        this.activeMtu = Checks.notNull("activeMtu", v);
        return this;
    }

    /** @return GID table length */
    public int gidTblLen() {
        return gidTblLen;
    }

    /**
     * @param v GID table length
     * @return this
     */
    public PortAttr gidTblLen(int v) {
        this.gidTblLen = v;
        return this;
    }

    /** @return capability mask ({@code port_cap_flags}) */
    public int portCapFlags() {
        return portCapFlags;
    }

    /**
     * @param v capability mask ({@code port_cap_flags})
     * @return this
     */
    public PortAttr portCapFlags(int v) {
        this.portCapFlags = v;
        return this;
    }

    /** @return largest message in bytes (rdmavt: 0x80000000) */
    public long maxMsgSz() {
        return maxMsgSz;
    }

    /**
     * @param v largest message in bytes (rdmavt: 0x80000000)
     * @return this
     */
    public PortAttr maxMsgSz(long v) {
        this.maxMsgSz = v;
        return this;
    }

    /** @return P_Key violations */
    public int badPkeyCntr() {
        return badPkeyCntr;
    }

    /**
     * @param v P_Key violations
     * @return this
     */
    public PortAttr badPkeyCntr(int v) {
        this.badPkeyCntr = v;
        return this;
    }

    /** @return Q_Key violations */
    public int qkeyViolCntr() {
        return qkeyViolCntr;
    }

    /**
     * @param v Q_Key violations
     * @return this
     */
    public PortAttr qkeyViolCntr(int v) {
        this.qkeyViolCntr = v;
        return this;
    }

    /** @return P_Key table length ({@code npkeys}) */
    public int pkeyTblLen() {
        return pkeyTblLen;
    }

    /**
     * @param v P_Key table length ({@code npkeys})
     * @return this
     */
    public PortAttr pkeyTblLen(int v) {
        this.pkeyTblLen = v;
        return this;
    }

    /** @return base LID */
    public int lid() {
        return lid;
    }

    /**
     * @param v base LID
     * @return this
     */
    public PortAttr lid(int v) {
        this.lid = v;
        return this;
    }

    /** @return subnet manager LID */
    public int smLid() {
        return smLid;
    }

    /**
     * @param v subnet manager LID
     * @return this
     */
    public PortAttr smLid(int v) {
        this.smLid = v;
        return this;
    }

    /** @return LID mask control */
    public int lmc() {
        return lmc;
    }

    /**
     * @param v LID mask control
     * @return this
     */
    public PortAttr lmc(int v) {
        this.lmc = v;
        return this;
    }

    /** @return number of data VLs */
    public int maxVlNum() {
        return maxVlNum;
    }

    /**
     * @param v number of data VLs
     * @return this
     */
    public PortAttr maxVlNum(int v) {
        this.maxVlNum = v;
        return this;
    }

    /** @return subnet manager SL */
    public int smSl() {
        return smSl;
    }

    /**
     * @param v subnet manager SL
     * @return this
     */
    public PortAttr smSl(int v) {
        this.smSl = v;
        return this;
    }

    /** @return subnet timeout code */
    public int subnetTimeout() {
        return subnetTimeout;
    }

    /**
     * @param v subnet timeout code
     * @return this
     */
    public PortAttr subnetTimeout(int v) {
        this.subnetTimeout = v;
        return this;
    }

    /** @return init type reply (rdmavt: 0) */
    public int initTypeReply() {
        return initTypeReply;
    }

    /**
     * @param v init type reply (rdmavt: 0)
     * @return this
     */
    public PortAttr initTypeReply(int v) {
        this.initTypeReply = v;
        return this;
    }

    /** @return active link width code */
    public int activeWidth() {
        return activeWidth;
    }

    /**
     * @param v active link width code
     * @return this
     */
    public PortAttr activeWidth(int v) {
        this.activeWidth = v;
        return this;
    }

    /** @return active link speed code */
    public int activeSpeed() {
        return activeSpeed;
    }

    /**
     * @param v active link speed code
     * @return this
     */
    public PortAttr activeSpeed(int v) {
        this.activeSpeed = v;
        return this;
    }

    /** @return physical port state code (5 = LinkUp) */
    public int physState() {
        return physState;
    }

    /**
     * @param v physical port state code (5 = LinkUp)
     * @return this
     */
    public PortAttr physState(int v) {
        this.physState = v;
        return this;
    }

    @Override
    public String toString() {
        return "PortAttr{state=" + state + ", activeMtu=" + activeMtu.bytes() + ", lid=" + lid + '}';
    }
}
