package io.rvt.core.mr;

import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.DeviceCounter;
import io.rvt.api.MemoryRegion;
import io.rvt.api.MemoryWindow;
import io.rvt.api.MwType;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QueuePair;
import io.rvt.api.SharedReceiveQueue;
import io.rvt.api.SrqInitAttr;
import io.rvt.api.VerbsException;
import io.rvt.core.base.Errors;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A protection domain ({@code struct rvt_pd}). Besides rdmavt's {@code user} flag it counts the objects created in it
 * (regions, QPs, SRQs, address handles) so that {@link #deallocPd()} can refuse while any exists; rdmavt leaves that
 * to the IB core's object tracking. Thread-safe.
 */
public final class RvtPd implements ProtectionDomain {
    /** {@link #uses} value once deallocated. */
    private static final int DEALLOCATED = -1;

    private final MrDevice dev;
    private final boolean user;
    /** Objects created in this PD, or {@link #DEALLOCATED}; changed only by CAS. */
    private final AtomicInteger uses = new AtomicInteger();

    private RvtPd(MrDevice dev, boolean user) {
        this.dev = dev;
        this.user = user;
    }

    /**
     * Mirrors {@code rvt_alloc_pd}.
     *
     * @param dev the device
     * @param user true for a user-space PD ({@code udata != NULL}; such a PD may not use key 0)
     * @return the PD
     * @throws VerbsException ENOMEM when {@code max_pd} PDs exist
     */
    public static RvtPd alloc(MrDevice dev, boolean user) {
        dev.checkAlive();
        int max = dev.props().maxPd();
        if (!dev.tryCount(DeviceCounter.PDS_ALLOCATED, max)) {
            throw Errors.nomem("allocPd: max_pd " + max + " protection domains exist on " + dev.name());
        }
        return new RvtPd(dev, user);
    }

    /** @return true for a user-space PD ({@code rvt_pd.user}) */
    public boolean isUser() {
        return user;
    }

    /** @return the device */
    public MrDevice dev() {
        return dev;
    }

    /**
     * Counts one more object created in this PD.
     *
     * @throws VerbsException EINVAL if the PD was deallocated
     */
    public void retainUse() {
        while (true) {
            int n = uses.get();
            if (n == DEALLOCATED) {
                throw Errors.inval("protection domain was deallocated");
            }
            if (uses.compareAndSet(n, n + 1)) {
                return;
            }
        }
    }

    /** Counts one object of this PD less (it was destroyed). */
    public void releaseUse() {
        int n = uses.decrementAndGet();
        if (n < 0) {
            uses.incrementAndGet();
            throw new IllegalStateException("releaseUse without retainUse on a PD of " + dev.name());
        }
    }

    /** @return objects currently created in this PD (0 once deallocated) */
    public int useCount() {
        return Math.max(uses.get(), 0);
    }

    @Override
    public MrDevice device() {
        return dev;
    }

    @Override
    public MemoryRegion regMr(ByteBuffer buffer, int access) {
        dev.checkAlive();
        return RvtMr.reg(this, buffer, access);
    }

    @Override
    public MemoryRegion regMrPieces(ByteBuffer[] pieces, int access) {
        dev.checkAlive();
        return RvtMr.regPieces(this, pieces, access);
    }

    @Override
    public MemoryRegion allocMr(int maxNumSg) {
        dev.checkAlive();
        return RvtMr.alloc(this, maxNumSg);
    }

    @Override
    public MemoryWindow allocMw(MwType type) {
        dev.checkAlive();
        return RvtMw.alloc(this, type);
    }

    @Override
    public QueuePair createQp(QpInitAttr init) {
        dev.checkAlive();
        return dev.createQp(this, init);
    }

    @Override
    public SharedReceiveQueue createSrq(SrqInitAttr init) {
        dev.checkAlive();
        return dev.createSrq(this, init);
    }

    @Override
    public AddressHandle createAh(AhAttr attr) {
        dev.checkAlive();
        return dev.createAh(this, attr);
    }

    /**
     * Mirrors {@code rvt_dealloc_pd}.
     *
     * @throws VerbsException EBUSY while objects of this PD exist, EINVAL if already deallocated
     */
    @Override
    public void deallocPd() {
        // No liveness check: applications must be able to clean up after the device went away.
        while (true) {
            int n = uses.get();
            if (n == DEALLOCATED) {
                throw Errors.inval("deallocPd: protection domain was already deallocated");
            }
            if (n > 0) {
                throw Errors.busy("deallocPd: " + n + " object" + (n == 1 ? "" : "s")
                        + " (memory regions and windows, QPs, SRQs, address handles) still use the protection domain");
            }
            if (uses.compareAndSet(0, DEALLOCATED)) {
                break;
            }
        }
        dev.uncount(DeviceCounter.PDS_ALLOCATED);
    }

    @Override
    public String toString() {
        return "RvtPd{" + dev.name() + (user ? ", user" : "") + ", uses=" + uses.get() + '}';
    }
}
