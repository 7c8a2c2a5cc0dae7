package io.rvt.api;

/**
 * A send work request ({@code struct ib_send_wr} with its RDMA, atomic, UD and registration variants:
 * {@code ib_rdma_wr}, {@code ib_atomic_wr}, {@code ib_ud_wr}, {@code ib_reg_wr}) as one mutable, reusable object.
 * The scatter/gather list is pre-allocated at construction; a request is meant to be set up once and posted again and
 * again with only the fields that change updated, so that steady-state posting allocates nothing (the idea of
 * DiSNI's stateful verb calls). Requests can be chained with {@link #next(SendWorkRequest)} and posted as a list.
 *
 * <p>Which fields are read depends on the opcode:
 * <ul>
 * <li>all: {@link #wrId()}, {@link #opcode()}, {@link #sendFlags()}, the scatter/gather list;</li>
 * <li>{@code *_WITH_IMM}: {@link #immData()}; {@code SEND_WITH_INV} and {@code LOCAL_INV}:
 * {@link #invalidateRkey()};</li>
 * <li>RDMA WRITE/READ and atomics: {@link #remoteAddr()}, {@link #rkey()}; atomics also {@link #compareAdd()} and
 * {@link #swap()};</li>
 * <li>UD, SMI and GSI QPs: {@link #ah()}, {@link #remoteQpn()}, {@link #remoteQkey()}, {@link #pkeyIndex()};</li>
 * <li>{@code REG_MR}: {@link #mr()}, {@link #key()}, {@link #access()};</li>
 * <li>{@code ATOMIC_WRITE}: {@link #remoteAddr()}, {@link #rkey()}, one 8-byte scatter/gather entry (the value);
 * {@code FLUSH} ({@code ibv_wr_flush}): {@link #remoteAddr()}, {@link #rkey()}, {@link #flushLength()},
 * {@link #flushType()}, {@link #flushLevel()};</li>
 * <li>{@code BIND_MW} ({@code ibv_send_wr.bind_mw}): {@link #mw()}, {@link #key()} (the new rkey, {@code rkey}) and
 * {@link #bindInfo()} ({@code bind_info}).</li>
 * </ul>
 * Setters reject values their C field cannot hold, naming the field and the value; everything that depends on the
 * QP or the device is checked by {@code postSend}. Not thread-safe.
 */
public final class SendWorkRequest {
    /**
     * The send-flag bits an application may set: the five IBTA flags and the driver-defined bits 28..31. Bits 26 and
     * 27 ({@code RVT_SEND_RESERVE_USED}, {@code RVT_SEND_COMPLETION_ONLY}) are rvt's own and are refused.
     */
    public static final int ALLOWED_SEND_FLAGS = SendFlag.ALL | 0xF000_0000;
    /** FLUSH placement type {@code IB_FLUSH_GLOBAL}: global visibility. */
    public static final int FLUSH_GLOBAL = 1;
    /** FLUSH placement type {@code IB_FLUSH_PERSISTENT}: persistence (not supported by rvt's responder). */
    public static final int FLUSH_PERSISTENT = 2;
    /** FLUSH selectivity level {@code IB_FLUSH_RANGE}: the range given. */
    public static final int FLUSH_RANGE = 0;
    /** FLUSH selectivity level {@code IB_FLUSH_MR}: the whole region the rkey names. */
    public static final int FLUSH_MR = 1;

    private long wrId;
    private WrOpcode opcode = WrOpcode.SEND;
    private int sendFlags;
    private final ScatterGatherEntry[] sgList;
    private int numSge;
    private int immData;
    private int invalidateRkey;
    private long remoteAddr;
    private int rkey;
    private long compareAdd;
    private long swap;
    private AddressHandle ah;
    private int remoteQpn;
    private int remoteQkey;
    private int pkeyIndex;
    private MemoryRegion mr;
    private int key;
    private int access;
    private int flushType = FLUSH_GLOBAL;
    private int flushLevel = FLUSH_RANGE;
    private int flushLength;
    private MemoryWindow mw;
    private final MwBindInfo bindInfo = new MwBindInfo();
    private SendWorkRequest next;

    /**
     * @param maxSge the number of scatter/gather entries this request can hold, at least 0
     */
    public SendWorkRequest(int maxSge) {
        Checks.nonNegative("maxSge", maxSge);
        sgList = new ScatterGatherEntry[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sgList[i] = new ScatterGatherEntry();
        }
    }

    /** @return the caller's id, returned in the completion */
    public long wrId() {
        return wrId;
    }

    /**
     * @param wrId the caller's id, returned in the completion
     * @return this
     */
    public SendWorkRequest wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** @return the operation */
    public WrOpcode opcode() {
        return opcode;
    }

    /**
     * @param opcode the operation
     * @return this
     */
    public SendWorkRequest opcode(WrOpcode opcode) {
        this.opcode = Checks.notNull("opcode", opcode);
        return this;
    }

    /** @return {@link SendFlag} bits (and driver bits 28..31) */
    public int sendFlags() {
        return sendFlags;
    }

    /**
     * @param flags {@link SendFlag} bits, plus driver-defined bits 28..31
     * @return this
     * @throws IllegalArgumentException if a bit outside {@link #ALLOWED_SEND_FLAGS} is set
     */
    public SendWorkRequest sendFlags(int flags) {
        if ((flags & ~ALLOWED_SEND_FLAGS) != 0) {
            throw new IllegalArgumentException("sendFlags 0x" + Integer.toHexString(flags)
                    + " has bits outside the allowed set 0x" + Integer.toHexString(ALLOWED_SEND_FLAGS)
                    + " (bits 26 and 27 are rvt-internal)");
        }
        this.sendFlags = flags;
        return this;
    }

    /** @return the number of scatter/gather entries in use */
    public int numSge() {
        return numSge;
    }

    /**
     * @param n the number of entries in use, 0..{@link #maxSge()}
     * @return this
     */
    public SendWorkRequest numSge(int n) {
        this.numSge = Checks.range("numSge", n, 0, sgList.length);
        return this;
    }

    /** @return the capacity of the scatter/gather list */
    public int maxSge() {
        return sgList.length;
    }

    /**
     * @param i index, 0..{@link #maxSge()}-1
     * @return the entry at {@code i} (owned by this request; set it in place)
     */
    public ScatterGatherEntry sge(int i) {
        return sgList[Checks.range("sge index", i, 0, sgList.length - 1)];
    }

    /**
     * Sets a single gather entry covering {@code length} bytes at {@code offset} in {@code mr}.
     *
     * @param region the region
     * @param offset offset in the region
     * @param length length in bytes
     * @return this
     */
    public SendWorkRequest sge(MemoryRegion region, int offset, int length) {
        sge(0).set(region, offset, length);
        numSge = 1;
        return this;
    }

    /** @return immediate data (big-endian on the wire, as {@code imm_data}) */
    public int immData() {
        return immData;
    }

    /**
     * @param imm immediate data for {@code SEND_WITH_IMM} and {@code RDMA_WRITE_WITH_IMM}
     * @return this
     */
    public SendWorkRequest immData(int imm) {
        this.immData = imm;
        return this;
    }

    /** @return the rkey to invalidate */
    public int invalidateRkey() {
        return invalidateRkey;
    }

    /**
     * @param rkey the rkey to invalidate ({@code SEND_WITH_INV} at the responder, {@code LOCAL_INV} locally)
     * @return this
     */
    public SendWorkRequest invalidateRkey(int rkey) {
        this.invalidateRkey = rkey;
        return this;
    }

    /** @return the remote virtual address */
    public long remoteAddr() {
        return remoteAddr;
    }

    /**
     * @param addr the remote virtual address (RDMA and atomics; atomics need 8-byte alignment)
     * @return this
     */
    public SendWorkRequest remoteAddr(long addr) {
        this.remoteAddr = addr;
        return this;
    }

    /** @return the remote key */
    public int rkey() {
        return rkey;
    }

    /**
     * @param rkey the remote key (RDMA and atomics)
     * @return this
     */
    public SendWorkRequest rkey(int rkey) {
        this.rkey = rkey;
        return this;
    }

    /** @return the compare value (CMP_AND_SWP) or the addend (FETCH_AND_ADD) */
    public long compareAdd() {
        return compareAdd;
    }

    /**
     * @param v the compare value (CMP_AND_SWP) or the addend (FETCH_AND_ADD)
     * @return this
     */
    public SendWorkRequest compareAdd(long v) {
        this.compareAdd = v;
        return this;
    }

    /** @return the swap value (CMP_AND_SWP) */
    public long swap() {
        return swap;
    }

    /**
     * @param v the swap value (CMP_AND_SWP)
     * @return this
     */
    public SendWorkRequest swap(long v) {
        this.swap = v;
        return this;
    }

    /** @return the address handle (UD, SMI, GSI) */
    public AddressHandle ah() {
        return ah;
    }

    /**
     * @param ah the destination's address handle (UD, SMI, GSI); it must belong to the QP's PD
     * @return this
     */
    public SendWorkRequest ah(AddressHandle ah) {
        this.ah = ah;
        return this;
    }

    /** @return the destination QP number (UD) */
    public int remoteQpn() {
        return remoteQpn;
    }

    /**
     * @param qpn the destination QP number (UD), 24 bits
     * @return this
     */
    public SendWorkRequest remoteQpn(int qpn) {
        this.remoteQpn = Checks.u24("remoteQpn", qpn);
        return this;
    }

    /** @return the destination Q_Key (UD) */
    public int remoteQkey() {
        return remoteQkey;
    }

    /**
     * @param qkey the destination Q_Key (UD); a value with the top bit set means "use the QP's own Q_Key"
     * @return this
     */
    public SendWorkRequest remoteQkey(int qkey) {
        this.remoteQkey = qkey;
        return this;
    }

    /** @return the P_Key index (GSI) */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /**
     * @param index the P_Key index (GSI only), 0..65535
     * @return this
     */
    public SendWorkRequest pkeyIndex(int index) {
        this.pkeyIndex = Checks.u16("pkeyIndex", index);
        return this;
    }

    /** @return the region to register (REG_MR) */
    public MemoryRegion mr() {
        return mr;
    }

    /**
     * @param region the fast-registration region (REG_MR), from {@link ProtectionDomain#allocMr(int)}
     * @return this
     */
    public SendWorkRequest mr(MemoryRegion region) {
        this.mr = region;
        return this;
    }

    /** @return the new key (REG_MR), or the window's new rkey (BIND_MW) */
    public int key() {
        return key;
    }

    /**
     * @param key the new lkey/rkey (REG_MR), or the window's new rkey (BIND_MW, {@code bind_mw.rkey}); only its low
     *            8 bits may differ from the region's or window's current key
     * @return this
     */
    public SendWorkRequest key(int key) {
        this.key = key;
        return this;
    }

    /** @return the access flags to register with (REG_MR) */
    public int access() {
        return access;
    }

    /**
     * @param flags {@link AccessFlag} bits the region gets (REG_MR)
     * @return this
     */
    public SendWorkRequest access(int flags) {
        this.access = flags;
        return this;
    }

    /** @return the FLUSH placement type bits ({@link #FLUSH_GLOBAL}, {@link #FLUSH_PERSISTENT}) */
    public int flushType() {
        return flushType;
    }

    /**
     * @param type FLUSH placement type bits ({@code ibv_wr_flush}'s {@code type}): {@link #FLUSH_GLOBAL},
     *             {@link #FLUSH_PERSISTENT} or both
     * @return this
     * @throws IllegalArgumentException for 0 or other bits
     */
    public SendWorkRequest flushType(int type) {
        if (type == 0 || (type & ~(FLUSH_GLOBAL | FLUSH_PERSISTENT)) != 0) {
            throw new IllegalArgumentException("flushType " + type + " must be FLUSH_GLOBAL (1), FLUSH_PERSISTENT (2)"
                    + " or both (3)");
        }
        this.flushType = type;
        return this;
    }

    /** @return the FLUSH selectivity level ({@link #FLUSH_RANGE} or {@link #FLUSH_MR}) */
    public int flushLevel() {
        return flushLevel;
    }

    /**
     * @param level FLUSH selectivity level ({@code ibv_wr_flush}'s {@code level}): {@link #FLUSH_RANGE} or
     *              {@link #FLUSH_MR}
     * @return this
     * @throws IllegalArgumentException for another value
     */
    public SendWorkRequest flushLevel(int level) {
        this.flushLevel = Checks.range("flushLevel", level, FLUSH_RANGE, FLUSH_MR);
        return this;
    }

    /** @return the FLUSH range's length in bytes */
    public int flushLength() {
        return flushLength;
    }

    /**
     * @param length the FLUSH range's length in bytes ({@code ibv_wr_flush}'s {@code len}; the RETH's DMA length),
     *               at least 0
     * @return this
     */
    public SendWorkRequest flushLength(int length) {
        this.flushLength = Checks.nonNegative("flushLength", length);
        return this;
    }

    /** @return the window to bind (BIND_MW) */
    public MemoryWindow mw() {
        return mw;
    }

    /**
     * @param window the type 2 window to bind (BIND_MW; {@code bind_mw.mw}), from {@link ProtectionDomain#allocMw}
     * @return this
     */
    public SendWorkRequest mw(MemoryWindow window) {
        this.mw = window;
        return this;
    }

    /**
     * @return what a BIND_MW binds ({@code bind_mw.bind_info}): owned by this request, set it in place; the window's
     *         new rkey is {@link #key()}
     */
    public MwBindInfo bindInfo() {
        return bindInfo;
    }

    /** @return the next request in the list, or null */
    public SendWorkRequest next() {
        return next;
    }

    /**
     * @param next the next request in the list, or null to end it
     * @return this
     */
    public SendWorkRequest next(SendWorkRequest next) {
        this.next = next;
        return this;
    }

    @Override
    public String toString() {
        return "SendWorkRequest{wrId=" + wrId + ", opcode=" + opcode + ", flags=" + SendFlag.describe(sendFlags)
                + ", numSge=" + numSge + '}';
    }
}
