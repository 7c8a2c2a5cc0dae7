package io.rvt.core.ah;

import static io.rvt.api.Errno.EINVAL;

import io.rvt.api.AhAttr;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.PortAttr;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverAh;
import io.rvt.core.base.CoreDevice;
import io.rvt.core.base.Errors;
import io.rvt.core.mr.RvtPd;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An address handle ({@code struct rvt_ah}): a checked copy of an address and the VL and path MTU the driver derived
 * from it at creation. Thread-safe: the attributes are replaced as a whole by {@link #modifyAh}, so
 * {@link #attr()} always returns a consistent snapshot that is never modified afterwards.
 */
public final class RvtAh implements DriverAh {
    private final CoreDevice dev;
    private final RvtPd pd;
    /** The attributes; replaced (never modified in place) by {@link #modifyAh}. */
    private volatile AhAttr attr;
    /** {@code vl}: set by the driver's {@code notify_new_ah}. */
    private volatile int vl;
    /** {@code log_pmtu}: set by the driver's {@code notify_new_ah}. */
    private volatile int logPmtu;
    private final AtomicBoolean destroyed = new AtomicBoolean();

    private RvtAh(CoreDevice dev, RvtPd pd, AhAttr attr) {
        this.dev = dev;
        this.pd = pd;
        this.attr = attr;
    }

    /**
     * Mirrors {@code rvt_check_ah}: the port number must exist, a static rate must be a valid {@code ib_rate}, a
     * global address's source GID index must be inside the port's GID table, and the driver's {@code check_ah}, if
     * it has one, gets the last word.
     *
     * <p>The port is queried (through the driver's {@code query_port_state}) only for a global address, to learn the
     * GID table length; rdmavt queries it first in every case. If the driver declined {@code QUERY_PORT} the length
     * is unknown and the GID index is not checked; any other query failure rejects the address, as in rdmavt.
     *
     * @param dev the device
     * @param attr the address
     * @return 0 if acceptable, {@code -EINVAL} from rvt's checks, or the driver's non-zero value
     */
    public static int checkAh(CoreDevice dev, AhAttr attr) {
        return check(dev, attr, null);
    }

    /**
     * {@link #checkAh} with the reason.
     *
     * @param dev the device
     * @param attr the attributes
     * @return null if they are valid, else what is wrong, naming the field and value
     */
    public static String whyInvalid(CoreDevice dev, AhAttr attr) {
        StringBuilder why = new StringBuilder();
        return check(dev, attr, why) == 0 ? null : why.length() > 0 ? why.toString() : attr.toString();
    }

    private static int check(CoreDevice dev, AhAttr attr, StringBuilder why) {
        int port = attr.portNum();
        if (port < 1 || port > dev.portCount()) {
            return fail(why, "portNum " + port + " is outside 1.." + dev.portCount());
        }
        int rate = attr.staticRate();
        if (rate != AhAttr.RATE_PORT_CURRENT && AhAttr.rateToMbps(rate) < 0) {
            return fail(why, "staticRate " + rate + " is not a valid ib_rate");
        }
        if (attr.isGlobal()) {
            int gidTblLen;
            try {
                gidTblLen = dev.queryPort(port, new PortAttr()).gidTblLen();
            } catch (VerbsException e) {
                gidTblLen = e.errno() == Errno.EOPNOTSUPP ? -1 : 0;
                if (gidTblLen == 0) {
                    return fail(why, "port " + port + " could not be queried: " + e.getMessage());
                }
            }
            if (gidTblLen >= 0 && attr.sgidIndex() >= gidTblLen) {
                return fail(why, "sgidIndex " + attr.sgidIndex() + " is outside the GID table of port " + port
                        + " (" + gidTblLen + " entries)");
            }
        }
        if (dev.provides(Callback.CHECK_AH)) {
            int r = dev.driver().checkAh(dev, attr);
            if (r != 0 && why != null) {
                why.append("driver '").append(dev.driverName()).append("' check_ah refused ").append(attr)
                        .append(" (returned ").append(r).append(')');
            }
            return r;
        }
        return 0;
    }

    private static int fail(StringBuilder why, String message) {
        if (why != null) {
            why.append(message);
        }
        return -EINVAL.value();
    }

    /**
     * Mirrors {@code rvt_create_ah}.
     *
     * @param dev the device
     * @param pd the PD
     * @param attr the address; copied
     * @return the handle, after the driver's {@code notify_new_ah}
     * @throws VerbsException EINVAL if {@link #checkAh} refuses the address (naming the field), ENOMEM when
     *                        {@code max_ah} handles exist; nothing is changed then
     */
    public static RvtAh create(CoreDevice dev, RvtPd pd, AhAttr attr) {
        dev.checkAlive();
        if (attr == null) {
            throw Errors.inval("createAh: attr is null");
        }
        StringBuilder why = new StringBuilder();
        if (check(dev, attr, why) != 0) {
            throw Errors.inval("createAh: " + why);
        }
        pd.retainUse();
        int max = dev.props().maxAh();
        if (!dev.tryCount(DeviceCounter.AHS_ALLOCATED, max)) {
            pd.releaseUse();
            throw Errors.nomem("createAh: max_ah " + max + " address handles exist on " + dev.name());
        }
        RvtAh ah = new RvtAh(dev, pd, new AhAttr().copyFrom(attr));
        if (dev.provides(Callback.NOTIFY_NEW_AH)) {
            try {
                dev.driver().notifyNewAh(dev, ah.attr, ah);
            } catch (RuntimeException e) {
                dev.uncount(DeviceCounter.AHS_ALLOCATED);
                pd.releaseUse();
                throw e;
            }
        }
        return ah;
    }

    /** @return the PD */
    public RvtPd rvtPd() {
        return pd;
    }

    /** @return true once destroyed */
    public boolean isDestroyed() {
        return destroyed.get();
    }

    private void checkLive(String verb) {
        dev.checkAlive();
        if (destroyed.get()) {
            throw Errors.inval(verb + ": address handle was destroyed");
        }
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public AhAttr queryAh(AhAttr out) {
        if (out == null) {
            throw Errors.inval("queryAh: out is null");
        }
        checkLive("queryAh");
        return out.copyFrom(attr);
    }

    /**
     * Mirrors {@code rvt_modify_ah}: checks and replaces the attributes. <b>[quirk, kept]</b> the VL and path MTU the
     * driver computed at creation are not recomputed ({@code notify_new_ah} is not called), as in rdmavt.
     *
     * @param newAttr the new attributes; copied
     * @throws VerbsException EINVAL if {@link #checkAh} refuses them (the handle is unchanged) or the handle was
     *                        destroyed
     */
    @Override
    public void modifyAh(AhAttr newAttr) {
        checkLive("modifyAh");
        if (newAttr == null) {
            throw Errors.inval("modifyAh: attr is null");
        }
        StringBuilder why = new StringBuilder();
        if (check(dev, newAttr, why) != 0) {
            throw Errors.inval("modifyAh: " + why);
        }
        attr = new AhAttr().copyFrom(newAttr);
    }

    /**
     * Mirrors {@code rvt_destroy_ah}. Work already posted keeps its own copy of the address.
     *
     * @throws VerbsException EINVAL if already destroyed
     */
    @Override
    public void destroyAh() {
        // No liveness check: applications must be able to clean up after the device went away.
        if (!destroyed.compareAndSet(false, true)) {
            throw Errors.inval("destroyAh: address handle was already destroyed");
        }
        dev.uncount(DeviceCounter.AHS_ALLOCATED);
        pd.releaseUse();
    }

    // ------------------------------------------------------------------ DriverAh

    @Override
    public AhAttr attr() {
        return attr;
    }

    @Override
    public int vl() {
        return vl;
    }

    @Override
    public void vl(int v) {
        vl = v;
    }

    @Override
    public int logPmtu() {
        return logPmtu;
    }

    @Override
    public void logPmtu(int v) {
        logPmtu = v;
    }

    @Override
    public String toString() {
        return "RvtAh{" + attr + ", vl=" + vl + ", logPmtu=" + logPmtu + (destroyed.get() ? ", destroyed" : "") + '}';
    }
}
