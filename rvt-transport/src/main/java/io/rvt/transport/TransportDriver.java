package io.rvt.transport;

import io.rvt.api.DeviceAttributes;
import io.rvt.api.PathMtu;
import io.rvt.api.QpAttr;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.MtuConversion;
import io.rvt.api.spi.QpPrivate;
import io.rvt.api.spi.QpQuiesce;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.SendEngine;
import io.rvt.api.spi.engine.CallSend;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.api.spi.engine.WqeSetup;
import io.rvt.transport.engine.DriverStateKey;
import io.rvt.transport.engine.QpProtocolState;
import io.rvt.transport.engine.SendScheduler;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * The part of {@code struct rvt_driver_provided} that every packet driver built on {@link Transport} fills the same
 * way, as hfi1 and qib share their QP callbacks: per-QP protocol state with a {@link QpSendEngine} ({@link QpPrivate}),
 * reset, error and restart through the transport ({@link QpQuiesce}'s {@code stop_send_queue} and
 * {@code notify_error_qp}; a subclass adds {@code flush_qp_waiters} and {@code quiesce_qp}), path MTU rules from the
 * port MTU ({@link MtuConversion}), and {@code setup_wqe}; a subclass supplies the {@link SendEngine}. A driver extends it, calls
 * {@link #attach(DriverDevice)} from {@code registered}, and supplies its identity, ports and send/receive engines.
 */
@ConsumerType
public abstract class TransportDriver implements RvtDriver, SendEngine, QpPrivate, QpQuiesce, MtuConversion,
        WqeSetup {
    private volatile Transport transport;

    /** For subclasses. */
    protected TransportDriver() {
    }

    /**
     * The parameters ({@code struct rvt_driver_params}) of a software packet HCA with no hardware limits of its own:
     * 16 SGEs, 16 outstanding RDMA READ/atomics per QP, 16 Ki WRs per queue, 24-bit PSNs, one P_Key, one completion
     * vector. driver-sim and driver-jni use these; a driver with real limits builds its own.
     *
     * @param nodeGuid     the node (and system image) GUID
     * @param vendorPartId the device's part id, to tell drivers apart in {@code queryDevice}
     * @param maxQp        most QPs (and CQs)
     * @param nports       the number of ports
     * @return the parameters
     */
    protected static DriverParams packetHcaParams(long nodeGuid, int vendorPartId, int maxQp, int nports) {
        return DriverParams.builder()
                .props(DeviceAttributes.builder().nodeGuid(nodeGuid).sysImageGuid(nodeGuid).vendorId(0x5253)
                        .vendorPartId(vendorPartId).hwVer(1).fwVer(1).maxMrSize(1L << 40).pageSizeCap(4096)
                        .maxQp(maxQp).maxQpWr(16384).maxSendSge(16).maxRecvSge(16).maxSgeRd(16).maxCq(maxQp)
                        .maxCqe(1 << 20).maxPd(1024).maxQpRdAtom(16).maxResRdAtom(16 * maxQp)
                        .maxQpInitRdAtom(16).atomicCap(1).maxMcastGrp(64).maxMcastQpAttach(64)
                        .maxTotalMcastQpAttach(4096).maxAh(4096).maxSrq(256).maxSrqWr(16384).maxSrqSge(16)
                        .maxPkeys(1).build())
                .lkeyTableSize(16).qpTableSize(256).qpnStart(1).qpnInc(1).nports(nports).npkeys(1)
                .psnMask(0xFFFFFF).psnShift(8).psnModifyMask(0xFFFFFF).maxRdmaAtomic(16).numCompVectors(1)
                .build();
    }

    /**
     * Creates the transport for a registered device; call it first thing in {@code registered}.
     *
     * @param dev the device rvt-core built for this driver
     * @return the transport
     */
    protected final Transport attach(DriverDevice dev) {
        Transport t = new Transport(dev, new SendScheduler() {
            @Override
            public void scheduleSend(DriverQp qp) {
                TransportDriver.this.scheduleSend(qp);
            }

            @Override
            public void letGoOfSendLock(DriverQp qp) {
                QpSendEngine.letGoOfSendLock(qp);
            }
        });
        transport = t;
        return t;
    }

    /** @return the transport, or null before registration */
    protected final Transport transport() {
        return transport;
    }

    /** @return the ports' MTU: the largest path MTU a QP may use */
    protected abstract PathMtu portMtu();

    /**
     * The driver's part of {@code qp_priv_alloc}: its own per-QP state (hfi1's {@code struct hfi1_qp_priv}), kept in
     * the QP's protocol state under a {@link io.rvt.transport.engine.DriverStateKey} ({@link QpSendEngine#KEY}, or
     * a {@link PacketDriver}{@code <E, S>}'s own, whose {@code newSendEngine} returns an {@code E}).
     *
     * @param qp a new QP
     * @return its send-engine state (a subclass of {@link QpSendEngine} for more per-QP state)
     */
    protected QpSendEngine newSendEngine(DriverQp qp) {
        return new QpSendEngine(qp);
    }

    /** @return the key the driver's per-QP state is stored under: {@link PacketDriver} narrows it to its engines */
    DriverStateKey<? extends QpSendEngine> engineKey() {
        return QpSendEngine.KEY;
    }

    /**
     * Mirrors {@code qp_priv_alloc}: the transport's protocol state, with the driver's send engine in it.
     *
     * @throws IllegalStateException if {@link #newSendEngine} made an engine of another class than the driver's
     *         {@link PacketDriver} declares
     */
    @Override
    public Object qpPrivAlloc(DriverDevice rdi, DriverQp qp) {
        QpProtocolState st = transport.newQpState(qp);
        store(st, engineKey(), newSendEngine(qp));
        return st;
    }

    private <E extends QpSendEngine> void store(QpProtocolState st, DriverStateKey<E> key, QpSendEngine e) {
        if (e != null && !key.type().isInstance(e)) {
            throw new IllegalStateException(getClass().getName() + ".newSendEngine made a " + e.getClass().getName()
                    + ", not the " + key.type().getName() + " its PacketDriver declares");
        }
        st.driverState(key, key.cast(e));
    }

    /** Mirrors {@code qp_priv_free}: the QP's engine stops for good. */
    @Override
    public void qpPrivFree(DriverDevice rdi, DriverQp qp) {
        QpSendEngine e = QpSendEngine.of(qp);
        if (e != null) {
            e.stop();
        }
    }

    /** Mirrors {@code notify_qp_reset}. */
    @Override
    public void notifyQpReset(DriverQp qp) {
        transport.resetQp(qp);
    }

    /** Mirrors {@code notify_error_qp}. */
    @Override
    public void notifyErrorQp(DriverQp qp) {
        transport.errorQp(qp);
    }

    /** Mirrors {@code notify_restart_rc}. */
    @Override
    public void notifyRestartRc(DriverQp qp, int psn, int wait) {
        transport.restartRc(qp, psn, wait);
    }

    /** Mirrors {@code stop_send_queue}: waits for a drain running on another thread. */
    @Override
    public void stopSendQueue(DriverQp qp) {
        QpSendEngine e = QpSendEngine.of(qp);
        if (e != null) {
            e.awaitIdle();
        }
    }

    /** Mirrors {@code get_pmtu_from_attr}: the requested path MTU, at most the port's. */
    @Override
    public int getPmtuFromAttr(DriverDevice rdi, DriverQp qp, QpAttr attr) {
        return Math.min(attr.pathMtu().value(), portMtu().value());
    }

    /** Mirrors {@code mtu_from_qp}. */
    @Override
    public int mtuFromQp(DriverDevice rdi, DriverQp qp, int pmtu) {
        return PathMtu.of(pmtu).bytes();
    }

    /** Mirrors {@code mtu_to_path_mtu}. */
    @Override
    public int mtuToPathMtu(int mtuBytes) {
        return PathMtu.ofBytes(mtuBytes).value();
    }

    /** Mirrors {@code setup_wqe}: {@link Transport#setupWqe}. */
    @Override
    public int setupWqe(DriverQp qp, SendWqe wqe, CallSend callSend) {
        return Transport.setupWqe(qp, wqe, callSend);
    }
}
