package io.rvt.core.mr;

import static io.rvt.api.Errno.EINVAL;
import static io.rvt.api.Errno.EOPNOTSUPP;
import static io.rvt.api.Errno.EPERM;

import io.rvt.api.AccessFlag;
import io.rvt.api.MemoryRegion;
import io.rvt.api.MemoryWindow;
import io.rvt.api.MwBindInfo;
import io.rvt.api.MwType;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.VerbsException;
import io.rvt.api.WrOpcode;
import io.rvt.core.base.Errors;

/**
 * A memory window ({@code struct rxe_mw}; rdmavt has none): a slot of the device's key table whose rkey grants remote
 * access to a range of a region with {@link AccessFlag#MW_BIND}. The checks and state changes follow rxe's
 * {@code rxe_mw.c} ({@code rxe_check_bind_mw}, {@code rxe_do_bind_mw}, {@code rxe_invalidate_mw},
 * {@code rxe_lookup_mw}); where rvt is stricter, docs/interop.md says so.
 *
 * <p>State: what a reader needs (rkey, region, range, access, the QP of a type 2 binding) is one immutable
 * {@link Binding} behind a volatile field, replaced whole by bind, invalidate and deallocation under the window's
 * lock, so the remote-key check ({@link RvtLkeyTable#rkeyOk}) reads a consistent snapshot without locking. A bound
 * window holds a reference to its region and counts in the region's bound windows, which keep {@code deregMr} from
 * succeeding (rxe's {@code num_mw}).
 */
public final class RvtMw implements MemoryWindow {
    /** Access bits a window may have ({@code RXE_ACCESS_SUPPORTED_MW} without FLUSH). */
    static final int SUPPORTED_ACCESS = AccessFlag.mask(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_ATOMIC, AccessFlag.ZERO_BASED);

    /** One binding, or the unbound state (no region, length 0). Immutable. */
    static final class Binding {
        final int rkey;
        final RvtMr mr;
        final long addr;
        final long length;
        final int access;
        /** The QP a type 2 window is bound through (identity only), or null. */
        final Object qp;

        Binding(int rkey, RvtMr mr, long addr, long length, int access, Object qp) {
            this.rkey = rkey;
            this.mr = mr;
            this.addr = addr;
            this.length = length;
            this.access = access;
            this.qp = qp;
        }

        boolean bound() {
            return mr != null && length != 0;
        }
    }

    private final MrDevice dev;
    private final RvtPd pd;
    private final MwType type;
    private final RvtLkeyTable table;
    /** The current binding; written under {@code this}, read by anyone. */
    private volatile Binding binding;
    /** True from allocation until deallocation; written under the key table's lock. */
    private volatile boolean published;

    private RvtMw(RvtPd pd, MwType type) {
        this.dev = pd.dev();
        this.pd = pd;
        this.type = type;
        this.table = dev.lkeyTable();
        this.binding = new Binding(0, null, 0, 0, 0, null);
    }

    /**
     * Mirrors {@code rxe_alloc_mw}: an unbound window with a key of the device's key table (key part 0).
     *
     * @param pd the PD
     * @param type the type
     * @return the window
     * @throws VerbsException EINVAL for a null type, EOPNOTSUPP if the device's operation table has no BIND_MW,
     *                        ENOMEM when the key table is full
     */
    static RvtMw alloc(RvtPd pd, MwType type) {
        if (type == null) {
            throw Errors.inval("allocMw: type is null");
        }
        if (pd.dev().operationTable().get(WrOpcode.BIND_MW) == null) {
            throw Errors.notsupp("allocMw: device " + pd.dev().name() + " has no memory windows (its driver's"
                    + " operation table has no BIND_MW)");
        }
        RvtMw mw = new RvtMw(pd, type);
        pd.retainUse();
        try {
            mw.table.allocWindow(mw);
        } catch (RuntimeException e) {
            pd.releaseUse();
            throw e;
        }
        return mw;
    }

    // ------------------------------------------------------------------ key table

    void publish(int key) {
        binding = new Binding(key, null, 0, 0, 0, null);
        published = true;
    }

    void unpublish() {
        published = false;
    }

    boolean isPublished() {
        return published;
    }

    Binding binding() {
        return binding;
    }

    /** @return the PD */
    public RvtPd rvtPd() {
        return pd;
    }

    // ------------------------------------------------------------------ bind and invalidate

    /**
     * Binds the window (rxe's {@code rxe_bind_mw}: {@code rxe_check_bind_mw} then {@code rxe_do_bind_mw}), or unbinds
     * a type 1 window with length 0. Nothing changes if a check fails.
     *
     * @param qp the posting QP (identity kept for a type 2 binding)
     * @param qpPd the posting QP's PD
     * @param viaVerb true for {@code ibv_bind_mw} (type 1), false for a BIND_MW work request (type 2)
     * @param newRkey the new rkey: only its low 8 bits may differ from the current one
     * @param info what to bind
     * @throws VerbsException EINVAL, EPERM or EOPNOTSUPP naming the check that failed
     */
    public synchronized void bind(Object qp, RvtPd qpPd, boolean viaVerb, int newRkey, MwBindInfo info) {
        Binding b = binding;
        String what = "bind of memory window rkey 0x" + Integer.toHexString(b.rkey) + ": ";
        if (!published) {
            throw Errors.inval(what + "the window was deallocated");
        }
        if (viaVerb && type != MwType.TYPE_1) {
            throw Errors.inval(what + "bindMw (ibv_bind_mw) binds type 1 windows; this one is " + type
                    + " (post a BIND_MW work request)");
        }
        if (!viaVerb && type != MwType.TYPE_2) {
            throw Errors.inval(what + "a BIND_MW work request binds type 2 windows; this one is " + type
                    + " (use bindMw)");
        }
        int access = info.mwAccessFlags();
        if ((access & ~SUPPORTED_ACCESS) != 0) {
            throw Errors.of(EOPNOTSUPP.value(), what + "access " + AccessFlag.describe(access)
                    + " has bits a window cannot have (only REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC, ZERO_BASED)");
        }
        MemoryRegion given = info.mr();
        long length = info.length();
        if (given == null && (length != 0 || info.addr() != 0)) {
            throw Errors.inval(what + "no region given for addr 0x" + Long.toHexString(info.addr()) + ", length "
                    + length);
        }
        if ((newRkey & 0xFFFF_FF00) != (b.rkey & 0xFFFF_FF00)) {
            throw Errors.inval(what + "the new rkey 0x" + Integer.toHexString(newRkey)
                    + " changes the window's index bits (only the low 8 bits, the key part, may change)");
        }
        if (type == MwType.TYPE_1) {
            if (AccessFlag.ZERO_BASED.in(access)) {
                throw Errors.inval(what + "a type 1 window cannot be zero-based (o10-36.2.2)");
            }
            if (length == 0) {
                // Unbind (rxe: a type 1 bind with length 0 drops the region).
                dropRegion(b);
                binding = new Binding(newRkey, null, 0, 0, access, null);
                return;
            }
        } else {
            if (b.bound()) {
                throw Errors.inval(what + "a type 2 window must be invalidated before it is bound again"
                        + " (o10-37.2.30)");
            }
            if (qpPd != pd) {
                throw Errors.inval(what + "the QP's PD is not the window's (C10-72)");
            }
            if (given == null || length == 0) {
                throw Errors.inval(what + "a type 2 window needs a region and a non-zero length (o10-37.2.40)");
            }
        }
        if (!(given instanceof RvtMr) || ((RvtMr) given).rvtPd().dev() != dev || !((RvtMr) given).isPublished()) {
            throw Errors.inval(what + "the region is not a registered region of device " + dev.name());
        }
        RvtMr mr = (RvtMr) given;
        if (mr.rvtPd() != pd) {
            throw Errors.of(EPERM.value(), what + "the region (lkey 0x" + Integer.toHexString(mr.lkey())
                    + ") belongs to another PD than the window");
        }
        if (mr.isLkeyInvalid()) {
            throw Errors.inval(what + "the region (lkey 0x" + Integer.toHexString(mr.lkey()) + ") is invalidated");
        }
        if (AccessFlag.ZERO_BASED.in(mr.access())) {
            throw Errors.inval(what + "the region (lkey 0x" + Integer.toHexString(mr.lkey()) + ") is zero-based");
        }
        if (!AccessFlag.MW_BIND.in(mr.access())) {
            throw Errors.inval(what + "the region (lkey 0x" + Integer.toHexString(mr.lkey()) + ", access "
                    + AccessFlag.describe(mr.access()) + ") was not registered with MW_BIND (C10-73)");
        }
        if ((access & (AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_ATOMIC.bit())) != 0
                && !AccessFlag.LOCAL_WRITE.in(mr.access())) {
            throw Errors.inval(what + "access " + AccessFlag.describe(access)
                    + " writes through a region without LOCAL_WRITE (C10-74)");
        }
        long addr = info.addr();
        long start = mr.addr();
        if (length < 0 || Long.compareUnsigned(addr, start) < 0 || Long.compareUnsigned(addr - start, mr.length()) > 0
                || length > mr.length() - (addr - start)) {
            throw Errors.inval(what + "the range [0x" + Long.toHexString(addr) + ", +" + length
                    + ") is not inside the region [0x" + Long.toHexString(start) + ", +" + mr.length() + ") (C10-75)");
        }
        mr.retain();
        mr.windowBound();
        dropRegion(b);
        binding = new Binding(newRkey, mr, addr, length, access, type == MwType.TYPE_2 ? qp : null);
    }

    /**
     * Mirrors {@code rxe_invalidate_mw} (LOCAL_INV, SEND_WITH_INV): a bound type 2 window of {@code qpPd} becomes
     * free; its rkey stops working.
     *
     * @param qpPd the PD of the QP the invalidation came through
     * @param rkey the key
     * @return 0, or {@code -EINVAL} for a stale key, another PD, a type 1 window or one that is not bound
     */
    synchronized int invalidate(RvtPd qpPd, int rkey) {
        Binding b = binding;
        if (!published || b.rkey != rkey || qpPd != pd || type != MwType.TYPE_2 || !b.bound()) {
            return -EINVAL.value();
        }
        dropRegion(b);
        binding = new Binding(b.rkey, null, 0, 0, 0, null);
        return 0;
    }

    private static void dropRegion(Binding b) {
        if (b.mr != null) {
            b.mr.windowUnbound();
            b.mr.release();
        }
    }

    // ------------------------------------------------------------------ MemoryWindow

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public MwType type() {
        return type;
    }

    @Override
    public int rkey() {
        return binding.rkey;
    }

    @Override
    public boolean isBound() {
        return binding.bound();
    }

    /**
     * Mirrors {@code rxe_dealloc_mw} and {@code rxe_mw_cleanup}: the key leaves the table, a bound window drops its
     * region.
     *
     * @throws VerbsException EINVAL if already deallocated
     */
    @Override
    public void deallocMw() {
        synchronized (this) {
            if (!table.freeWindow(this)) {
                throw Errors.inval("deallocMw: memory window rkey 0x" + Integer.toHexString(binding.rkey)
                        + " was already deallocated");
            }
            Binding b = binding;
            dropRegion(b);
            binding = new Binding(b.rkey, null, 0, 0, 0, null);
        }
        pd.releaseUse();
    }

    @Override
    public String toString() {
        Binding b = binding;
        return "RvtMw{" + type + ", rkey=0x" + Integer.toHexString(b.rkey) + (b.bound() ? ", mr lkey=0x"
                + Integer.toHexString(b.mr.lkey()) + ", addr=0x" + Long.toHexString(b.addr) + ", length=" + b.length
                + ", access=" + AccessFlag.describe(b.access) : ", unbound") + (published ? "" : ", deallocated") + '}';
    }
}
