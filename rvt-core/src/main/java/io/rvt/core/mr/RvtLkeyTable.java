package io.rvt.core.mr;

import static io.rvt.api.Errno.EACCES;
import static io.rvt.api.Errno.EINVAL;

import io.rvt.api.ScatterGatherEntry;
import io.rvt.api.spi.Sge;
import io.rvt.core.base.Errors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A device's memory-key table ({@code struct rvt_lkey_table}): {@code 2^bits} slots, one per registered region, and
 * the key checks every local SGE and every remote access goes through ({@code rvt_lkey_ok}, {@code rvt_rkey_ok}).
 *
 * <p>Key layout (32 bits; {@code bits} = {@code lkey_table_size}, 1..23):
 * <pre>
 *  31              32-bits  31-bits                8 7               0
 * +------------------------+------------------------+-----------------+
 * |  slot index (bits)     | generation (24 - bits) | consumer key (8)|
 * +------------------------+------------------------+-----------------+
 * </pre>
 * The consumer key is 0 when a key is allocated and may be changed by fast registration ({@link #fastRegMr}); the
 * generation comes from a table counter that moves on every allocation, so a reused slot gets a different key. A key is
 * never 0: rdmavt reserves key 0 for the DMA region of a kernel PD ({@code rvt_get_dma_mr}), which rvt does not
 * support (Java buffers have no physical addresses), so <b>lkey and rkey 0 always fail validation</b>.
 *
 * <p>Threads: allocation and freeing take the table lock ({@code lkey_table.lock}); readers are lock-free (rdmavt
 * uses RCU): a slot read is a volatile read, after which the reader takes a region reference and re-checks that the
 * region is still published, so a region found just before it was unpublished is released again, never used.
 *
 * <p>Virtual addresses: Java buffers have no stable address, so rvt chooses each region's virtual address itself
 * ({@link #nextVaddr(long)}): a device-unique, 4 KiB-aligned range after the previous region's, starting at
 * {@value #FIRST_VADDR}.
 */
public final class RvtLkeyTable {
    /** The first virtual address handed to a region. */
    public static final long FIRST_VADDR = 0x10000L;
    /** Upper bound of the lkey index bits ({@code RVT_MAX_LKEY_TABLE_BITS}). */
    public static final int MAX_LKEY_TABLE_BITS = 23;
    /** Page size used for address alignment and fast-registration page counts ({@code PAGE_SIZE}). */
    public static final int PAGE_SIZE = 4096;

    private final MrDevice dev;
    private final int bits;
    private final int shift;
    private final int max;
    private final int genMask;
    /**
     * The slots, each an {@link RvtMr} or an {@link RvtMw} (windows share the key space, as an rkey names either);
     * written only under {@link #lock}, read by anyone (volatile reads).
     */
    private final AtomicReferenceArray<Object> table;
    /** {@code lkey_table.lock}: serialises allocation and freeing. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Start of the next free-slot probe; under {@link #lock}. */
    private int next;
    /** Generation counter; under {@link #lock}. */
    private int gen;
    /** Start of the next region's virtual address range. */
    private final AtomicLong nextVaddr = new AtomicLong(FIRST_VADDR);

    /**
     * @param dev the device
     * @param bits {@code lkey_table_size}, 1..23 (the device clamps larger values)
     */
    public RvtLkeyTable(MrDevice dev, int bits) {
        if (bits < 1 || bits > MAX_LKEY_TABLE_BITS) {
            throw new IllegalArgumentException("lkey table bits " + bits + " outside 1.."
                    + MAX_LKEY_TABLE_BITS);
        }
        this.dev = dev;
        this.bits = bits;
        this.shift = 32 - bits;
        this.max = 1 << bits;
        this.genMask = (1 << (24 - bits)) - 1;
        this.table = new AtomicReferenceArray<>(max);
    }

    /** @return the device */
    public MrDevice dev() {
        return dev;
    }

    /** @return bits of the slot index */
    public int bits() {
        return bits;
    }

    /** @return the number of slots ({@code 2^bits}) */
    public int size() {
        return max;
    }

    /**
     * @param key a key
     * @return its slot index ({@code key >>> (32 - bits)})
     */
    public int slotOf(int key) {
        return key >>> shift;
    }

    /**
     * @param key a key
     * @return its generation field
     */
    public int generationOf(int key) {
        return (key >>> 8) & genMask;
    }

    /**
     * The region in a key's slot, whatever its state (no reference taken).
     *
     * @param key a key
     * @return the region, or null if the slot is empty
     */
    public RvtMr get(int key) {
        Object o = table.get(key >>> shift);
        return o instanceof RvtMr ? (RvtMr) o : null;
    }

    /** @return the number of occupied slots (a snapshot; diagnostics and tests) */
    public int count() {
        int n = 0;
        for (int i = 0; i < max; i++) {
            if (table.get(i) != null) {
                n++;
            }
        }
        return n;
    }

    /**
     * Reserves the next virtual address range: 4 KiB-aligned, after every earlier one.
     *
     * @param length the region's length in bytes
     * @return the first address of the range
     */
    long nextVaddr(long length) {
        long span = (length + PAGE_SIZE - 1) & -PAGE_SIZE;
        return nextVaddr.getAndAdd(Math.max(span, PAGE_SIZE));
    }

    /**
     * Mirrors {@code rvt_alloc_lkey(mr, 0)}: gives {@code mr} a key, publishes it and takes the table's reference.
     * For a region registered without a virtual address ({@code assignVaddr}), the address range is reserved here,
     * only on success.
     *
     * @param mr the region, not yet published
     * @param assignVaddr whether to give the region its virtual address now
     * @throws io.rvt.api.VerbsException ENOMEM when every slot is taken (nothing changed)
     */
    void alloc(RvtMr mr, boolean assignVaddr) {
        lock.lock();
        try {
            int key = nextKey();
            if (assignVaddr) {
                mr.assignVaddr(nextVaddr(mr.length()));
            }
            mr.retain();
            mr.publish(key);
            table.set(key >>> shift, mr);
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@link #alloc} for a memory window (rxe's {@code rxe_alloc_mw}: the window's index in the upper bits, key part
     * 0 here): gives it a key and publishes it.
     *
     * @param mw the window, not yet published
     * @throws io.rvt.api.VerbsException ENOMEM when every slot is taken (nothing changed)
     */
    void allocWindow(RvtMw mw) {
        lock.lock();
        try {
            int key = nextKey();
            mw.publish(key);
            table.set(key >>> shift, mw);
        } finally {
            lock.unlock();
        }
    }

    /** A free slot's new key, with {@link #next} and {@link #gen} moved on; {@link #lock} held. */
    private int nextKey() {
        int r = next;
        int probed = 0;
        while (table.get(r) != null) {
            if (++probed == max) {
                throw Errors.nomem("lkey table of device " + dev.name() + " is full (" + max
                        + " regions and windows)");
            }
            r = (r + 1) & (max - 1);
        }
        next = (r + 1) & (max - 1);
        gen++;
        int key = (r << shift) | ((gen & genMask) << 8);
        if (key == 0) {
            // Key 0 belongs to the DMA region: move on one generation (rdmavt does the same).
            key |= 1 << 8;
            gen++;
        }
        return key;
    }

    /**
     * Takes a window's key out of the table ({@code rxe_dealloc_mw}).
     *
     * @param mw the window
     * @return true if it was published, false if it had been deallocated before
     */
    boolean freeWindow(RvtMw mw) {
        lock.lock();
        try {
            if (!mw.isPublished()) {
                return false;
            }
            mw.unpublish();
            int slot = mw.rkey() >>> shift;
            if (table.get(slot) == mw) {
                table.set(slot, null);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Mirrors {@code rvt_free_lkey} for a non-DMA region: unpublishes it and clears its slot.
     *
     * @param mr the region
     * @return true if it was published (the caller then drops the table and user references), false if it had been
     *         unpublished before
     */
    boolean free(RvtMr mr) {
        lock.lock();
        try {
            if (!mr.isPublished()) {
                return false;
            }
            mr.unpublish();
            int slot = mr.lkey() >>> shift;
            if (table.get(slot) == mr) {
                table.set(slot, null);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Mirrors {@code rvt_lkey_ok}: validates a local SGE of a work request and fills {@code isge} with a reference
     * to its region. Allocation-free; any thread (the caller holds the QP's post or receive lock).
     *
     * <p>An SGE that continues {@code lastSge} in the same region ({@code rvt_sge_adjacent}: same key and
     * {@code lastSge.vaddr + lastSge.length == sge.addr}, and within the region) is merged into it instead. Since an
     * rvt region is a single segment whose {@code Sge.length} runs to the region's end, that happens only for an SGE
     * starting at the region's end, i.e. a zero-length one (post send skips those before calling this).
     *
     * @param pd the QP's PD
     * @param isge filled on success (a reference is taken for it)
     * @param lastSge the previous validated SGE of the same request, or null
     * @param sge the entry to check
     * @param acc required {@link io.rvt.api.AccessFlag} bits: <b>all</b> of them must be granted
     * @return 1 for a new entry in {@code isge}, 0 if merged into {@code lastSge} (no new reference),
     *         {@code -EINVAL} if the key, PD, bounds or access do not match (no reference kept)
     */
    public int lkeyOk(RvtPd pd, Sge isge, Sge lastSge, ScatterGatherEntry sge, int acc) {
        int key = sge.lkey();
        long addr = sge.addr();
        int len = sge.length();
        if (key == 0) {
            // The DMA region: refused for user PDs, and rvt never installs one.
            return -EINVAL.value();
        }
        if (lastSge != null && lastSge.mr() != null && lastSge.mr().lkey() == key
                && lastSge.vaddr() + lastSge.length() == addr) {
            if (((RvtMr) lastSge.mr()).spanFrom(addr, len) >= 0) {
                lastSge.extend(len);
                return 0;
            }
            // Overrun: not merged; the check below rejects it.
        }
        return check(pd, isge, key, addr, len, acc, true);
    }

    /**
     * {@link #lkeyOk} for an entry that holds no region reference ({@link io.rvt.api.spi.engine.SgeState#borrow}): the
     * caller holds the receiving QP's {@code recvLock}, the region is in that QP's PD, and the entry is used up or
     * pinned before the lock is released, so a {@code deregMr} of the region waits for it in
     * {@code rvt_qp_mr_clean} as it would for a reference. No merge with a previous entry.
     *
     * @param pd the QP's PD
     * @param isge filled on success (no reference is taken)
     * @param sge the entry to check
     * @param acc required {@link io.rvt.api.AccessFlag} bits
     * @return 1, or {@code -EINVAL} as {@link #lkeyOk}
     */
    public int lkeyOkUnreferenced(RvtPd pd, Sge isge, ScatterGatherEntry sge, int acc) {
        int key = sge.lkey();
        if (key == 0) {
            return -EINVAL.value();
        }
        return check(pd, isge, key, sge.addr(), sge.length(), acc, false);
    }

    private int check(RvtPd pd, Sge isge, int key, long addr, int len, int acc, boolean reference) {
        Object o = table.get(key >>> shift);
        if (!(o instanceof RvtMr)) {
            return -EINVAL.value(); // empty, or a window: windows grant remote access only
        }
        RvtMr mr = (RvtMr) o;
        if (reference) {
            mr.retain(); // before the checks: a region unpublished after them keeps this reference's wait
        }
        int span = mr.spanFrom(addr, len);
        if (!mr.isPublished() || mr.isLkeyInvalid() || mr.lkey() != key || mr.rvtPd() != pd || span < 0
                || (mr.access() & acc) != acc) {
            if (reference) {
                mr.release();
            }
            return -EINVAL.value();
        }
        isge.set(mr, addr, span, len);
        return 1;
    }

    /**
     * Mirrors {@code rvt_rkey_ok}: validates a remote access ({@code vaddr}, {@code len}, {@code rkey}) for a QP of
     * {@code pd} and fills {@code sge} with a reference to the region. Allocation-free; any thread.
     *
     * @param pd the PD of the QP the request arrived on
     * @param sge filled on success (a reference is taken for it)
     * @param len the length of the access
     * @param vaddr the first virtual address
     * @param rkey the remote key
     * @param acc {@link io.rvt.api.AccessFlag} bits: <b>any</b> one of them granted suffices (unlike
     *            {@link #lkeyOk})
     * @return true on success, false if the key, PD, bounds or access do not match (no reference kept); always false
     *         for rkey 0
     */
    public boolean rkeyOk(RvtPd pd, Sge sge, int len, long vaddr, int rkey, int acc) {
        return rkeyOk(null, pd, sge, len, vaddr, rkey, acc);
    }

    /**
     * {@link #rkeyOk(RvtPd, Sge, int, long, int, int)} for a request that arrived on {@code qp}: an rkey of a memory
     * window ({@code rxe_lookup_mw}) must match the window's current key, its PD must be the QP's, a type 2 window
     * must be bound through {@code qp}, it must be bound and grant one of {@code acc}; the range, counted from the
     * window's start for a zero-based window, must lie inside the window (rxe checks only the region's bounds), and
     * the region behind it must be valid. {@code sge} then refers to the region, in its addresses.
     *
     * @param qp the QP the request arrived on (identity), or null for none
     * @param pd that QP's PD
     * @param sge filled on success (a reference is taken for it)
     * @param len the length of the access
     * @param vaddr the first virtual address (a zero-based window's offset)
     * @param rkey the remote key
     * @param acc {@link io.rvt.api.AccessFlag} bits: any one of them granted suffices
     * @return true on success, false if any check fails (no reference kept)
     */
    public boolean rkeyOk(Object qp, RvtPd pd, Sge sge, int len, long vaddr, int rkey, int acc) {
        if (rkey == 0) {
            return false;
        }
        Object o = table.get(rkey >>> shift);
        if (o instanceof RvtMw) {
            return windowOk(qp, pd, (RvtMw) o, sge, len, vaddr, rkey, acc);
        }
        if (o == null) {
            return false;
        }
        RvtMr mr = (RvtMr) o;
        mr.retain();
        int span = mr.spanFrom(vaddr, len);
        if (!mr.isPublished() || mr.isLkeyInvalid() || mr.lkey() != rkey || mr.rvtPd() != pd || span < 0
                || (mr.access() & acc) == 0) {
            mr.release();
            return false;
        }
        sge.set(mr, vaddr, span, len);
        return true;
    }

    private static boolean windowOk(Object qp, RvtPd pd, RvtMw mw, Sge sge, int len, long vaddr, int rkey,
            int acc) {
        RvtMw.Binding b = mw.binding();
        if (!mw.isPublished() || b.rkey != rkey || !b.bound() || mw.rvtPd() != pd
                || (mw.type() == io.rvt.api.MwType.TYPE_2 && b.qp != qp) || (b.access & acc) == 0) {
            return false;
        }
        boolean zeroBased = io.rvt.api.AccessFlag.ZERO_BASED.in(b.access);
        long off = zeroBased ? vaddr : vaddr - b.addr;
        if ((!zeroBased && Long.compareUnsigned(vaddr, b.addr) < 0) || Long.compareUnsigned(off, b.length) > 0
                || len > b.length - off) {
            return false;
        }
        long addr = b.addr + off;
        RvtMr mr = b.mr;
        mr.retain();
        int span = mr.spanFrom(addr, len);
        if (mw.binding() != b || !mr.isPublished() || mr.isLkeyInvalid() || span < 0) {
            mr.release();
            return false;
        }
        sge.set(mr, addr, (int) Math.min(span, b.length - off), len);
        return true;
    }

    /**
     * Mirrors {@code rvt_invalidate_rkey} (LOCAL_INV, SEND_WITH_INV): marks the region so that every key check
     * fails until the next fast registration. The publication state is not checked, as in rdmavt. An rkey of a
     * memory window goes to rxe's {@code rxe_invalidate_mw} ({@link RvtMw}): a bound type 2 window of the PD becomes
     * free.
     *
     * @param pd the QP's PD
     * @param rkey the key
     * @return 0, or {@code -EINVAL} for key 0, an empty slot, a stale key or another PD's region or window, a type 1
     *         window or a window that is not bound
     */
    public int invalidateRkey(RvtPd pd, int rkey) {
        if (rkey == 0) {
            return -EINVAL.value();
        }
        Object o = table.get(rkey >>> shift);
        if (o instanceof RvtMw) {
            return ((RvtMw) o).invalidate(pd, rkey);
        }
        RvtMr mr = (RvtMr) o;
        if (mr == null || mr.lkey() != rkey || mr.rvtPd() != pd) {
            return -EINVAL.value();
        }
        mr.invalidate();
        return 0;
    }

    /**
     * Mirrors {@code rvt_fast_reg_mr} (the REG_MR post path): makes a fast-registration region's mapping
     * ({@link RvtMr#mapBuffer}) accessible with {@code access} under {@code key}, which may differ from the current
     * key only in its low 8 bits, and clears a previous invalidation.
     *
     * <p>rvt adds one check rdmavt cannot make: write access ({@code LOCAL_WRITE}, {@code REMOTE_WRITE},
     * {@code REMOTE_ATOMIC}) to a read-only buffer is refused with {@code -EINVAL}.
     *
     * @param qpPd the posting QP's PD
     * @param mr the region
     * @param key the new key
     * @param access the new {@link io.rvt.api.AccessFlag} bits
     * @return 0, {@code -EACCES} if the region belongs to another PD, {@code -EINVAL} for a region that is not a
     *         fast-registration one or a key that differs outside the low 8 bits
     */
    public int fastRegMr(RvtPd qpPd, RvtMr mr, int key, int access) {
        if (mr.rvtPd() != qpPd) {
            return -EACCES.value();
        }
        if (!mr.isFastReg() || mr.lkey() == 0) {
            return -EINVAL.value();
        }
        if ((key & 0xFFFF_FF00) != (mr.lkey() & 0xFFFF_FF00)) {
            return -EINVAL.value();
        }
        if (mr.isReadOnly() && (access & RvtMr.WRITE_ACCESS) != 0) {
            return -EINVAL.value();
        }
        mr.fastReg(key, access);
        return 0;
    }
}
