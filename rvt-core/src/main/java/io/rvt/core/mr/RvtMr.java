package io.rvt.core.mr;

import io.rvt.api.AccessFlag;
import io.rvt.api.DeviceCounter;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.DriverMr;
import io.rvt.api.spi.MrMapping;
import io.rvt.core.base.Errors;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A memory region ({@code struct rvt_mr} with its {@code struct rvt_mregion}): one contiguous range of a
 * {@link ByteBuffer}, a virtual address, a key ({@code lkey == rkey}), access flags and a reference count.
 *
 * <p>Virtual addresses: Java buffers have no stable address, so rvt chooses them. A region registered with
 * {@link AccessFlag#ZERO_BASED} starts at 0; any other gets a device-unique, 4 KiB-aligned range after the previous
 * region's ({@link RvtLkeyTable#FIRST_VADDR} upwards). rdmavt's {@code user_base} and {@code iova} are therefore the
 * same value here ({@link #addr()}); a fast-registration region takes the address given to {@link #mapBuffer}.
 *
 * <p>Reference count ({@code rvt_get_mr}/{@code rvt_put_mr}): 1 for the user, 1 for the key table while published,
 * 1 per validated SGE ({@link RvtLkeyTable#lkeyOk}, {@link RvtLkeyTable#rkeyOk}). {@link #deregMr()} drops the first
 * two and waits for the rest.
 *
 * <p>Atomics ({@link #atomicFetchAdd}, {@link #atomicCompareSwap}) on a direct buffer whose 8 bytes are 8-byte aligned
 * in memory are lock-free ({@code VarHandle}); on heap buffers, and misaligned direct memory, they take one of a fixed
 * set of striped locks chosen by the memory location, so two regions over the same bytes use the same lock. A given
 * location always takes the same path, so atomics on it are atomic with respect to each other; plain reads and
 * writes by RDMA are not ordered against them (as with hardware).
 */
public final class RvtMr implements DriverMr {
    private static final System.Logger LOG = System.getLogger(RvtMr.class.getName());

    /** System property holding how long {@link #deregMr()} waits for references, in ms. */
    public static final String DEREG_TIMEOUT_PROP_NAME = "rvt.mr.dereg.timeout.ms";
    /** rdmavt's {@code rvt_check_refs} waits 5 s. */
    public static final long DEREG_TIMEOUT_DEFAULT_MS = 5000;
    /** Access bits that write the region's bytes. */
    static final int WRITE_ACCESS = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_ATOMIC);

    /** The dereg wait in ns; package-private and mutable so tests do not wait seconds. */
    static volatile long deregTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(
            Long.getLong(DEREG_TIMEOUT_PROP_NAME, DEREG_TIMEOUT_DEFAULT_MS));

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
            ByteOrder.nativeOrder());
    private static final int STRIPES = 64;
    private static final Object[] STRIPE_LOCKS = new Object[STRIPES];
    /** Misaligned direct memory (and read-only heap memory) has no identity to stripe by: one lock for all of it. */
    private static final Object UNSTRIPED_LOCK = new Object();

    static {
        for (int i = 0; i < STRIPES; i++) {
            STRIPE_LOCKS[i] = new Object();
        }
    }

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0).order(ByteOrder.nativeOrder());

    private final MrDevice dev;
    private final RvtPd pd;
    private final RvtLkeyTable table;
    private final boolean fastReg;
    private final int maxNumSg;
    /** Written by registration, {@link #mapBuffer} and {@link #assignVaddr}, each time a new one, so a reader sees a
     *  consistent set; read by key checks and drivers ({@link #mapping()}). */
    private volatile MrMapping mapping;
    /** {@code lkey} (= {@code rkey}); written at publication and by fast registration. */
    private volatile int key;
    /** {@code access_flags}; written at registration and by fast registration. */
    private volatile int access;
    /** {@code lkey_published}; written under the key table's lock. */
    private volatile boolean published;
    /** {@code lkey_invalid}; set by {@link RvtLkeyTable#invalidateRkey}, cleared by fast registration. */
    private volatile boolean lkeyInvalid;
    private final AtomicInteger refcount = new AtomicInteger(1);
    /** Memory windows bound to this region ({@code rxe_mr.num_mw}): while any is, {@link #deregMr()} refuses. */
    private final AtomicInteger boundWindows = new AtomicInteger();
    private final ReentrantLock refLock = new ReentrantLock();
    private final Condition refsGone = refLock.newCondition();
    /** Dereg progress: 0 live, 1 a dereg timed out (holding one re-taken reference), 2 deregistered. */
    private int deregState;
    private final Object deregLock = new Object();

    private RvtMr(MrDevice dev, RvtPd pd, MrMapping mapping, int access, boolean fastReg, int maxNumSg) {
        this.dev = dev;
        this.pd = pd;
        this.table = dev.lkeyTable();
        this.mapping = mapping;
        this.access = access;
        this.fastReg = fastReg;
        this.maxNumSg = maxNumSg;
    }

    /**
     * Mirrors {@code rvt_reg_user_mr}: registers {@code buffer}'s bytes between position and limit.
     *
     * @param pd the PD
     * @param buffer the memory
     * @param access {@link AccessFlag} bits
     * @return the published region
     * @throws VerbsException EINVAL for an empty range, unknown access bits, remote write or atomic access without
     *                        local write, or write access to a read-only buffer; ENOMEM when the key table is full
     */
    static RvtMr reg(RvtPd pd, ByteBuffer buffer, int access) {
        MrDevice dev = pd.dev();
        if (buffer == null) {
            throw Errors.inval("regMr: buffer is null");
        }
        checkAccess("regMr", access);
        checkFlagsForMemory(access);
        if (!buffer.hasRemaining()) {
            throw Errors.inval("regMr: buffer range is empty (position " + buffer.position() + ", limit "
                    + buffer.limit() + ")");
        }
        if (buffer.isReadOnly() && (access & WRITE_ACCESS) != 0) {
            throw Errors.inval("regMr: buffer is read-only but access " + AccessFlag.describe(access)
                    + " allows writing");
        }
        ByteBuffer memory = buffer.slice().order(ByteOrder.nativeOrder());
        boolean zeroBased = AccessFlag.ZERO_BASED.in(access);
        RvtMr mr = new RvtMr(dev, pd, new MrMapping(memory, 0), access, false, 0);
        publishNew(mr, !zeroBased);
        return mr;
    }

    /**
     * Registers a region in pieces ({@link io.rvt.api.ProtectionDomain#regMrPieces(ByteBuffer[], int)}):
     * {@code rvt_reg_user_mr}'s checks, and the pieces' own (direct, of one power-of-two length of at least 4 KiB,
     * the last no longer, within {@code max_mr_size}). One piece is {@link #reg(RvtPd, ByteBuffer, int)}.
     *
     * @param pd the PD
     * @param pieces the memory, each piece's bytes between position and limit
     * @param access {@link AccessFlag} bits
     * @return the published region
     * @throws VerbsException EINVAL as the method it mirrors says, naming the piece and the value; ENOMEM when the
     *                        key table is full
     */
    static RvtMr regPieces(RvtPd pd, ByteBuffer[] pieces, int access) {
        if (pieces == null || pieces.length == 0) {
            throw Errors.inval("regMr: no pieces (" + (pieces == null ? "null" : "an empty array") + ")");
        }
        if (pieces.length == 1) {
            return reg(pd, pieces[0], access);
        }
        checkAccess("regMr", access);
        ByteBuffer[] slices = new ByteBuffer[pieces.length];
        long total = 0;
        int size = 0;
        for (int i = 0; i < pieces.length; i++) {
            ByteBuffer b = pieces[i];
            if (b == null) {
                throw Errors.inval("regMr: piece " + i + " of " + pieces.length + " is null");
            }
            int len = b.remaining();
            if (!b.isDirect()) {
                throw Errors.inval("regMr: piece " + i + " is a heap buffer; a region in pieces takes direct ones");
            }
            if (b.isReadOnly() && (access & WRITE_ACCESS) != 0) {
                throw Errors.inval("regMr: piece " + i + " is read-only but access " + AccessFlag.describe(access)
                        + " allows writing");
            }
            if (i == 0) {
                if (len < RvtLkeyTable.PAGE_SIZE || Integer.bitCount(len) != 1) {
                    throw Errors.inval("regMr: piece 0 has " + len + " bytes; the pieces' length must be a power"
                            + " of two of at least " + RvtLkeyTable.PAGE_SIZE);
                }
                size = len;
            } else if (i < pieces.length - 1 ? len != size : len < 1 || len > size) {
                throw Errors.inval("regMr: piece " + i + " has " + len + " bytes; "
                        + (i < pieces.length - 1 ? "every piece but the last must have " + size
                        : "the last must have 1 to " + size));
            }
            slices[i] = b.slice().order(ByteOrder.nativeOrder());
            total += len;
        }
        long max = pd.dev().props().maxMrSize();
        if (max > 0 && total > max) {
            throw Errors.inval("regMr: " + total + " bytes in " + pieces.length + " pieces exceed the device's"
                    + " max_mr_size " + max);
        }
        checkFlagsForMemory(access);
        MrMapping m = new MrMapping(slices, Integer.numberOfTrailingZeros(size), 0, total);
        RvtMr mr = new RvtMr(pd.dev(), pd, m, access, false, 0);
        publishNew(mr, !AccessFlag.ZERO_BASED.in(access));
        return mr;
    }

    /**
     * Mirrors {@code rvt_alloc_mr} ({@code IB_MR_TYPE_MEM_REG}): a published key with no memory, access 0, length 0.
     *
     * @param pd the PD
     * @param maxNumSg the most 4 KiB pages {@link #mapBuffer} may map
     * @return the region
     * @throws VerbsException EINVAL if {@code maxNumSg < 1}, ENOMEM when the key table is full
     */
    static RvtMr alloc(RvtPd pd, int maxNumSg) {
        if (maxNumSg < 1) {
            throw Errors.inval("allocMr: maxNumSg " + maxNumSg + " must be at least 1");
        }
        // rvt's fast-registration page list limit: the pages must fit in max_mr_size (4 KiB each).
        long maxPages = pd.dev().props().maxMrSize() / RvtLkeyTable.PAGE_SIZE;
        if (maxNumSg > maxPages) {
            throw Errors.inval("allocMr: maxNumSg " + maxNumSg + " pages exceed the device's limit of " + maxPages
                    + " (max_mr_size " + pd.dev().props().maxMrSize() + " / " + RvtLkeyTable.PAGE_SIZE + ")");
        }
        RvtMr mr = new RvtMr(pd.dev(), pd, new MrMapping(EMPTY, 0), 0, true, maxNumSg);
        publishNew(mr, false);
        return mr;
    }

    private static void publishNew(RvtMr mr, boolean assignVaddr) {
        MrDevice dev = mr.dev;
        mr.pd.retainUse();
        // rdmavt keeps no MR counter: the key table is the limit (max_mr is its size). Counted for diagnostics.
        dev.tryCount(DeviceCounter.MRS_ALLOCATED, Long.MAX_VALUE);
        try {
            mr.table.alloc(mr, assignVaddr);
        } catch (RuntimeException e) {
            dev.uncount(DeviceCounter.MRS_ALLOCATED);
            mr.pd.releaseUse();
            throw e;
        }
    }

    private static void checkFlagsForMemory(int access) {
        if (AccessFlag.ON_DEMAND.in(access)) {
            throw Errors.notsupp("regMr: access ON_DEMAND (on-demand paging) is not supported");
        }
        if (AccessFlag.FLUSH_PERSISTENT.in(access)) {
            // rxe refuses it for memory that is not pmem; a ByteBuffer never is.
            throw Errors.inval("regMr: access FLUSH_PERSISTENT needs persistent memory, which a ByteBuffer is not");
        }
    }

    private static void checkAccess(String verb, int access) {
        if ((access & ~AccessFlag.ALL) != 0) {
            throw Errors.inval(verb + ": access 0x" + Integer.toHexString(access) + " has unknown bits 0x"
                    + Integer.toHexString(access & ~AccessFlag.ALL));
        }
        if ((access & (AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_ATOMIC.bit())) != 0
                && !AccessFlag.LOCAL_WRITE.in(access)) {
            throw Errors.inval(verb + ": access " + AccessFlag.describe(access)
                    + " grants remote write or atomic access without LOCAL_WRITE");
        }
    }

    // ------------------------------------------------------------------ package-private state changes

    void assignVaddr(long iova) {
        mapping = mapping.at(iova);
    }

    void publish(int newKey) {
        key = newKey;
        published = true;
    }

    void unpublish() {
        published = false;
    }

    void invalidate() {
        lkeyInvalid = true;
    }

    void windowBound() {
        boundWindows.incrementAndGet();
    }

    void windowUnbound() {
        boundWindows.decrementAndGet();
    }

    /** @return memory windows bound to this region now */
    public int boundWindows() {
        return boundWindows.get();
    }

    void fastReg(int newKey, int newAccess) {
        key = newKey;
        access = newAccess;
        // Last: a reader that sees the region valid again also sees the new key and access.
        lkeyInvalid = false;
    }

    // ------------------------------------------------------------------ core accessors

    /** @return the PD */
    public RvtPd rvtPd() {
        return pd;
    }

    /** @return rdmavt's {@code user_base}: the address local keys are checked against (equal to {@link #addr()}) */
    public long userBase() {
        return mapping.addr();
    }

    /** @return true while the key is in the table ({@code lkey_published}) */
    public boolean isPublished() {
        return published;
    }

    /** @return true after {@code LOCAL_INV} until the next fast registration ({@code lkey_invalid}) */
    public boolean isLkeyInvalid() {
        return lkeyInvalid;
    }

    /** @return true for a region from {@code allocMr} */
    public boolean isFastReg() {
        return fastReg;
    }

    /** @return the most pages {@link #mapBuffer} may map (0 for a registered region) */
    public int maxNumSg() {
        return maxNumSg;
    }

    /** @return the current reference count (diagnostics and tests) */
    public int refCount() {
        return refcount.get();
    }

    /**
     * Bounds check against one consistent snapshot of the mapping (rdmavt's {@code user_base}/{@code iova} and
     * {@code length} tests, in u64 arithmetic).
     *
     * @param addr the first virtual address
     * @param len the length
     * @return bytes from {@code addr} to the region's end (at most {@code Integer.MAX_VALUE}), or -1 if
     *         {@code [addr, addr + len)} is not inside the region
     */
    int spanFrom(long addr, int len) {
        MrMapping m = mapping;
        if (Long.compareUnsigned(addr, m.addr()) < 0) {
            return -1;
        }
        long off = addr - m.addr();
        if (Long.compareUnsigned(off, m.length()) > 0 || len > m.length() - off) {
            return -1;
        }
        return (int) Math.min(m.length() - off, Integer.MAX_VALUE);
    }

    boolean isReadOnly() {
        return mapping.memory().isReadOnly();
    }


    // ------------------------------------------------------------------ MemoryRegion

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public int lkey() {
        return key;
    }

    @Override
    public int rkey() {
        return key;
    }

    @Override
    public long addr() {
        return mapping.addr();
    }

    @Override
    public long length() {
        return mapping.length();
    }

    @Override
    public int access() {
        return access;
    }

    /**
     * A new view of the region's bytes (native byte order), position 0 at {@link #addr()}.
     *
     * @return a duplicate of the shared buffer
     */
    @Override
    public ByteBuffer buffer() {
        MrMapping m = mapping;
        if (m.pieceShift() != 0) {
            throw Errors.inval("buffer: region lkey 0x" + Integer.toHexString(key) + " is in " + m.pieceCount()
                    + " pieces; use buffers()");
        }
        return m.memory().duplicate().order(ByteOrder.nativeOrder());
    }

    @Override
    public ByteBuffer[] buffers() {
        MrMapping m = mapping;
        if (m.pieceShift() == 0) {
            return new ByteBuffer[] {m.memory().duplicate().order(ByteOrder.nativeOrder())};
        }
        ByteBuffer[] out = new ByteBuffer[m.pieceCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = m.piece(i).duplicate().order(ByteOrder.nativeOrder());
        }
        return out;
    }

    @Override
    public int pieceShift() {
        return mapping.pieceShift();
    }

    @Override
    public ByteBuffer piece(int i) {
        return mapping.piece(i);
    }

    /**
     * Mirrors {@code rvt_map_mr_sg}: sets the bytes and the virtual address a later REG_MR makes accessible. As in
     * rdmavt the region's address and length change at once; its access flags (0 until the first REG_MR) do not.
     * The number of pages is counted from the page offset of {@code iova}:
     * {@code ceil(((iova mod 4096) + length) / 4096)}.
     *
     * @param buffer the bytes between position and limit
     * @param iova the virtual address of the first byte
     * @throws VerbsException EINVAL if this is not a fast-registration region, it was deregistered, or the range is
     *                        empty; ENOMEM if the range needs more than {@link #maxNumSg()} pages
     */
    @Override
    public void mapBuffer(ByteBuffer buffer, long iova) {
        dev.checkAlive();
        if (!fastReg) {
            throw Errors.inval("mapBuffer: region lkey 0x" + Integer.toHexString(key)
                    + " is not a fast-registration region (use allocMr)");
        }
        if (buffer == null) {
            throw Errors.inval("mapBuffer: buffer is null");
        }
        if (!buffer.hasRemaining()) {
            throw Errors.inval("mapBuffer: buffer range is empty (position " + buffer.position() + ", limit "
                    + buffer.limit() + ")");
        }
        long pages = ((iova & (RvtLkeyTable.PAGE_SIZE - 1)) + buffer.remaining() + RvtLkeyTable.PAGE_SIZE - 1)
                / RvtLkeyTable.PAGE_SIZE;
        if (pages > maxNumSg) {
            throw Errors.nomem("mapBuffer: " + buffer.remaining() + " bytes at iova 0x" + Long.toHexString(iova)
                    + " need " + pages + " pages, region lkey 0x" + Integer.toHexString(key) + " was allocated for "
                    + maxNumSg);
        }
        synchronized (deregLock) {
            if (deregState != 0) {
                throw Errors.inval("mapBuffer: region lkey 0x" + Integer.toHexString(key) + " was deregistered");
            }
            mapping = new MrMapping(buffer.slice().order(ByteOrder.nativeOrder()), iova);
        }
    }

    /**
     * Mirrors {@code rvt_dereg_mr}: unpublishes the key, drops the user and table references, moves QPs of the same
     * PD whose work still uses the key to the error state ({@code rvt_qp_mr_clean}), then waits up to 5 s (system
     * property {@value #DEREG_TIMEOUT_PROP_NAME}, in ms) for the last reference to go.
     *
     * <p>On timeout the call re-takes one reference and fails with EBUSY; the region stays unpublished (unusable)
     * but allocated, and a later {@code deregMr} drops that reference and waits again, as in rdmavt.
     *
     * @throws VerbsException EBUSY if references remain after the wait; EINVAL if already deregistered or while
     *                        memory windows are bound to it (as rxe)
     */
    @Override
    public void deregMr() {
        // No liveness check: applications must be able to clean up after the device went away.
        synchronized (deregLock) {
            if (deregState == 2) {
                throw Errors.inval("deregMr: region lkey 0x" + Integer.toHexString(key) + " is already deregistered");
            }
            int lkey = key;
            int windows = boundWindows.get();
            if (windows > 0) {
                // rxe_dereg_mr refuses the same way; nothing is changed.
                throw Errors.inval("deregMr: region lkey 0x" + Integer.toHexString(lkey) + " has " + windows
                        + " memory window" + (windows == 1 ? "" : "s") + " bound to it (deallocate or invalidate"
                        + " them first)");
            }
            if (deregState == 0) {
                table.free(this);
                release(); // the user's reference (rdmavt kills the base reference in rvt_free_lkey)
                release(); // the table's reference
                deregState = 1;
            } else {
                release(); // the reference re-taken by the dereg that timed out
            }
            dev.deregCleanQps(pd, lkey);
            if (!awaitRefsGone(deregTimeoutNanos)) {
                int left = refcount.get();
                retain();
                LOG.log(System.Logger.Level.WARNING, () -> "deregMr timed out on " + dev.name() + ": lkey 0x"
                        + Integer.toHexString(lkey) + " still has " + left + " references");
                throw Errors.busy("deregMr: region lkey 0x" + Integer.toHexString(lkey) + " still has " + left
                        + " reference" + (left == 1 ? "" : "s") + " after the wait");
            }
            deregState = 2;
        }
        dev.uncount(DeviceCounter.MRS_ALLOCATED);
        pd.releaseUse();
    }

    private boolean awaitRefsGone(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        // rvt extension: a driver whose engines run on the caller's thread does the work that drops them here
        while (refcount.get() > 0 && deadline - System.nanoTime() > 0 && dev.driver().progressWhileWaiting()) {
            continue; // it did some: look again
        }
        refLock.lock();
        try {
            long left = deadline - System.nanoTime();
            boolean interrupted = false;
            while (refcount.get() > 0) {
                if (left <= 0) {
                    break;
                }
                try {
                    left = refsGone.awaitNanos(left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return refcount.get() <= 0;
        } finally {
            refLock.unlock();
        }
    }

    // ------------------------------------------------------------------ DriverMr

    /**
     * The region's bytes as one shared buffer in native byte order; the same instance on every call as long as the
     * mapping is unchanged (only {@link #mapBuffer} changes it).
     *
     * @return the shared buffer
     */
    @Override
    public ByteBuffer memory() {
        return mapping.memory();
    }

    /**
     * The mapping this region holds, replaced as a whole by {@link #mapBuffer} and by a zero-based key's address: one
     * volatile read for the buffer, the pieces, the shift, the address and the length.
     *
     * @return the mapping
     */
    @Override
    public MrMapping mapping() {
        return mapping;
    }

    @Override
    public void retain() {
        refcount.incrementAndGet();
    }

    @Override
    public void release() {
        release(1);
    }

    @Override
    public void release(int n) {
        if (refcount.addAndGet(-n) == 0) {
            refLock.lock();
            try {
                refsGone.signalAll();
            } finally {
                refLock.unlock();
            }
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws IndexOutOfBoundsException if the 8 bytes are not inside the region
     */
    @Override
    public long atomicFetchAdd(long vaddr, long add) {
        MrMapping m = mapping;
        ByteBuffer mem = m.piece(pieceOf(m, vaddr));
        int i = index(m, mem, vaddr);
        if (mem.isDirect() && mem.alignmentOffset(i, 8) == 0) {
            return (long) LONGS.getAndAdd(mem, i, add);
        }
        synchronized (lockFor(mem, i)) {
            long old = mem.getLong(i);
            mem.putLong(i, old + add);
            return old;
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws IndexOutOfBoundsException if the 8 bytes are not inside the region
     */
    @Override
    public long atomicCompareSwap(long vaddr, long compare, long swap) {
        MrMapping m = mapping;
        ByteBuffer mem = m.piece(pieceOf(m, vaddr));
        int i = index(m, mem, vaddr);
        if (mem.isDirect() && mem.alignmentOffset(i, 8) == 0) {
            return (long) LONGS.compareAndExchange(mem, i, compare, swap);
        }
        synchronized (lockFor(mem, i)) {
            long old = mem.getLong(i);
            if (old == compare) {
                mem.putLong(i, swap);
            }
            return old;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>A release store ({@code VarHandle.setRelease}) on aligned direct memory, else under the location's lock.
     *
     * @throws IndexOutOfBoundsException if the 8 bytes are not inside the region
     */
    @Override
    public void atomicWrite(long vaddr, long value) {
        MrMapping m = mapping;
        ByteBuffer mem = m.piece(pieceOf(m, vaddr));
        int i = index(m, mem, vaddr);
        if (mem.isDirect() && mem.alignmentOffset(i, 8) == 0) {
            LONGS.setRelease(mem, i, value);
            return;
        }
        synchronized (lockFor(mem, i)) {
            mem.putLong(i, value);
        }
    }

    /** The piece of a region in pieces that holds the byte at {@code vaddr} (out-of-range: the last or the first). */
    private static int pieceOf(MrMapping m, long vaddr) {
        long p = (vaddr - m.addr()) >> m.pieceShift();
        return (int) Math.max(0, Math.min(p, m.pieceCount() - 1));
    }

    private int index(MrMapping m, ByteBuffer mem, long vaddr) {
        long off = vaddr - m.addr();
        long pieceStart = m.pieceShift() == 0 ? 0 : (long) pieceOf(m, vaddr) << m.pieceShift();
        if (off < 0 || off - pieceStart > mem.capacity() - 8L) {
            throw new IndexOutOfBoundsException("atomic at 0x" + Long.toHexString(vaddr) + " is outside region lkey 0x"
                    + Integer.toHexString(key) + " [0x" + Long.toHexString(m.addr()) + ", +" + m.length() + ")"
                    + (m.pieceShift() == 0 || off >= m.length() ? "" : " or crosses the end of a piece"));
        }
        return (int) (off - pieceStart);
    }

    /** The lock for the 8 bytes at {@code index}: keyed by the backing array and absolute index, for heap memory. */
    private static Object lockFor(ByteBuffer mem, int index) {
        if (!mem.hasArray()) {
            return UNSTRIPED_LOCK;
        }
        int abs = mem.arrayOffset() + index;
        int h = System.identityHashCode(mem.array()) * 0x9E3779B9 + (abs >>> 3);
        return STRIPE_LOCKS[(h ^ (h >>> 16)) & (STRIPES - 1)];
    }

    @Override
    public String toString() {
        MrMapping m = mapping;
        return "RvtMr{lkey=0x" + Integer.toHexString(key) + ", addr=0x" + Long.toHexString(m.addr()) + ", length="
                + m.length() + ", access=" + AccessFlag.describe(access) + (fastReg ? ", fastReg" : "")
                + (published ? "" : ", unpublished") + (lkeyInvalid ? ", invalid" : "") + '}';
    }
}
