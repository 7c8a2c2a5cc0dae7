package io.rvt.api.spi;

import io.rvt.api.Device;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.ScatterGatherEntry;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The driver's view of its device ({@code struct rvt_dev_info}): parameters, ports, QP lookup and iteration, the
 * lkey table and the timer service. rvt-core builds one per driver instance and hands it to the driver in
 * {@link RvtDriver#registered(DriverDevice)}.
 */
@ProviderType
public interface DriverDevice extends Device {
    /** @return the driver */
    RvtDriver driver();

    /** @return the validated parameters ({@code dparms}) */
    DriverParams params();

    /** @return the operation table ({@code post_parms} and {@code wc_opcode}) */
    OperationTable operationTable();

    /**
     * @param portNum the port, 1-based
     * @return the port ({@code ports[portNum - 1]})
     * @throws IllegalArgumentException if the port does not exist
     */
    DriverPort port(int portNum);

    /**
     * Mirrors {@code rvt_lookup_qpn}: the QP with number {@code qpn} (QP0/QP1 of {@code port}, others from the device
     * table), without taking a reference. The result may be reset or destroyed concurrently: a receive path that uses
     * it beyond a quick check must use {@link #lookupQpnAndRetain} instead.
     *
     * @param port the port a packet arrived on
     * @param qpn the QP number
     * @return the QP, or null
     */
    DriverQp lookupQpn(DriverPort port, int qpn);

    /**
     * Like {@link #lookupQpn}, but takes a reference atomically with the lookup (the Java replacement for rdmavt's
     * RCU read section): a QP returned here is not destroyed until the reference is dropped with
     * {@link DriverQp#release()}. It may still be reset concurrently, so a receive path checks the QP's state under
     * its {@code recvLock} before acting, as rdmavt's drivers do.
     *
     * @param port the port a packet arrived on
     * @param qpn the QP number
     * @return the retained QP, or null
     */
    DriverQp lookupQpnAndRetain(DriverPort port, int qpn);

    /**
     * Mirrors {@code rvt_qp_iter_init}.
     *
     * @return a cursor over every QP
     */
    QpIter qpIter();

    /**
     * Mirrors {@code rvt_qp_iter}: calls {@code cb} for every QP, holding a reference during each call.
     *
     * @param v a cookie passed to each call
     * @param cb the callback
     */
    void forEachQp(long v, QpCallback cb);

    /**
     * Mirrors {@code rvt_lkey_ok}: validates a local SGE against the lkey table: region present and published, key
     * and PD match, {@code sge} inside the region, all of {@code acc} granted. On success fills {@code isge} and
     * takes a region reference. If {@code lastSge} is given and {@code sge} continues it in the same region, merges
     * into it instead.
     *
     * @param pd the PD of the QP (or SRQ)
     * @param isge filled on success
     * @param lastSge the previous validated SGE, or null to disable merging
     * @param sge the caller's entry
     * @param acc {@code AccessFlag} bits all of which are required
     * @return 1 if {@code isge} was filled, 0 if merged into {@code lastSge}, -22 ({@code -EINVAL}) if invalid
     */
    int lkeyOk(ProtectionDomain pd, Sge isge, Sge lastSge, ScatterGatherEntry sge, int acc);

    /**
     * The clock and timers this device runs on, an rvt extension: the driver's own ({@link RvtDriver#timerService()};
     * driver-sim's deterministic fabric gives its virtual time, whose {@link TimerService#replaySeed()} is the
     * fabric's seed), else rvt-core's real-time one (driver-jni, real-time driver-sim). The device's RC retry and RNR
     * timers run on it; software above the verbs reaches it through {@link TimerService#of(Device)}.
     *
     * @return the timer service in use (the same one for the device's life)
     */
    TimerService timerService();

    /**
     * @return {@code busy_jiffies}: ticks added to every retry timeout, {@code n_rc_qps / 5}
     */
    int busyTicks();
}
