package io.rvt.api;

/**
 * A work completion ({@code struct ib_wc}). Applications pass their own, reusable instances to
 * {@link CompletionQueue#pollCq(WorkCompletion[], int)}, which copies into them, so polling allocates nothing. Drivers
 * fill one and hand it to the core's completion helpers, which copy it into the CQ ring.
 *
 * <p>When {@link #status()} is not {@link WcStatus#SUCCESS}, only {@link #wrId()}, {@link #status()},
 * {@link #opcode()}, {@link #qpNum()} and {@link #byteLen()} are meaningful. Not thread-safe.
 */
public final class WorkCompletion {
    private long wrId;
    private WcStatus status = WcStatus.SUCCESS;
    private WcOpcode opcode = WcOpcode.SEND;
    private int vendorErr;
    private int byteLen;
    private int immData;
    private int invalidateRkey;
    private int qpNum;
    private int srcQp;
    private int wcFlags;
    private int pkeyIndex;
    private int slid;
    private int sl;
    private int dlidPathBits;
    private int portNum;

    /** @return the id of the work request that completed */
    public long wrId() {
        return wrId;
    }

    /**
     * @param v the id of the work request that completed
     * @return this
     */
    public WorkCompletion wrId(long v) {
        wrId = v;
        return this;
    }

    /** @return the completion status */
    public WcStatus status() {
        return status;
    }

    /**
     * @param v the completion status
     * @return this
     */
    public WorkCompletion status(WcStatus v) {
        status = v;
        return this;
    }

    /** @return what completed */
    public WcOpcode opcode() {
        return opcode;
    }

    /**
     * @param v what completed
     * @return this
     */
    public WorkCompletion opcode(WcOpcode v) {
        opcode = v;
        return this;
    }

    /** @return vendor error code (driver-defined) */
    public int vendorErr() {
        return vendorErr;
    }

    /**
     * @param v vendor error code
     * @return this
     */
    public WorkCompletion vendorErr(int v) {
        vendorErr = v;
        return this;
    }

    /** @return bytes transferred (receives: bytes placed; sends: total length of the WQE) */
    public int byteLen() {
        return byteLen;
    }

    /**
     * @param v bytes transferred
     * @return this
     */
    public WorkCompletion byteLen(int v) {
        byteLen = v;
        return this;
    }

    /** @return immediate data, valid with {@link WcFlag#WITH_IMM} */
    public int immData() {
        return immData;
    }

    /**
     * @param v immediate data
     * @return this
     */
    public WorkCompletion immData(int v) {
        immData = v;
        return this;
    }

    /** @return the invalidated rkey, valid with {@link WcFlag#WITH_INVALIDATE} */
    public int invalidateRkey() {
        return invalidateRkey;
    }

    /**
     * @param v the invalidated rkey
     * @return this
     */
    public WorkCompletion invalidateRkey(int v) {
        invalidateRkey = v;
        return this;
    }

    /** @return the number of the local QP the work request belonged to */
    public int qpNum() {
        return qpNum;
    }

    /**
     * @param v the local QP number
     * @return this
     */
    public WorkCompletion qpNum(int v) {
        qpNum = v;
        return this;
    }

    /** @return (receives) the source QP number */
    public int srcQp() {
        return srcQp;
    }

    /**
     * @param v the source QP number
     * @return this
     */
    public WorkCompletion srcQp(int v) {
        srcQp = v;
        return this;
    }

    /** @return {@link WcFlag} bits */
    public int wcFlags() {
        return wcFlags;
    }

    /**
     * @param v {@link WcFlag} bits
     * @return this
     */
    public WorkCompletion wcFlags(int v) {
        wcFlags = v;
        return this;
    }

    /** @return (GSI receives) the P_Key index */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /**
     * @param v the P_Key index
     * @return this
     */
    public WorkCompletion pkeyIndex(int v) {
        pkeyIndex = v;
        return this;
    }

    /** @return (receives) the source LID */
    public int slid() {
        return slid;
    }

    /**
     * @param v the source LID
     * @return this
     */
    public WorkCompletion slid(int v) {
        slid = v;
        return this;
    }

    /** @return (receives) the service level */
    public int sl() {
        return sl;
    }

    /**
     * @param v the service level
     * @return this
     */
    public WorkCompletion sl(int v) {
        sl = v;
        return this;
    }

    /** @return (receives) destination LID path bits */
    public int dlidPathBits() {
        return dlidPathBits;
    }

    /**
     * @param v destination LID path bits
     * @return this
     */
    public WorkCompletion dlidPathBits(int v) {
        dlidPathBits = v;
        return this;
    }

    /** @return the port the completion came from */
    public int portNum() {
        return portNum;
    }

    /**
     * @param v the port number
     * @return this
     */
    public WorkCompletion portNum(int v) {
        portNum = v;
        return this;
    }

    /**
     * Copies every field from {@code o} (no allocation).
     *
     * @param o the source
     * @return this
     */
    public WorkCompletion copyFrom(WorkCompletion o) {
        wrId = o.wrId;
        status = o.status;
        opcode = o.opcode;
        vendorErr = o.vendorErr;
        byteLen = o.byteLen;
        immData = o.immData;
        invalidateRkey = o.invalidateRkey;
        qpNum = o.qpNum;
        srcQp = o.srcQp;
        wcFlags = o.wcFlags;
        pkeyIndex = o.pkeyIndex;
        slid = o.slid;
        sl = o.sl;
        dlidPathBits = o.dlidPathBits;
        portNum = o.portNum;
        return this;
    }

    /**
     * Resets every field (status SUCCESS, opcode SEND, numbers 0), as a zeroed {@code struct ib_wc}.
     *
     * @return this
     */
    public WorkCompletion clear() {
        wrId = 0;
        status = WcStatus.SUCCESS;
        opcode = WcOpcode.SEND;
        vendorErr = byteLen = immData = invalidateRkey = qpNum = srcQp = wcFlags = 0;
        pkeyIndex = slid = sl = dlidPathBits = portNum = 0;
        return this;
    }

    @Override
    public String toString() {
        return "WorkCompletion{wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLen=" + byteLen
                + ", qpNum=" + qpNum + (wcFlags != 0 ? ", flags=" + WcFlag.describe(wcFlags) : "")
                + (WcFlag.WITH_IMM.in(wcFlags) ? ", imm=0x" + Integer.toHexString(immData) : "") + '}';
    }
}
