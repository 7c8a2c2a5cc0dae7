package io.rvt.it.loopback;

import io.rvt.api.DeviceAttributes;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.PortState;
import io.rvt.api.QpAttr;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.GidLookup;
import io.rvt.api.spi.MtuConversion;
import io.rvt.api.spi.OperationTable;
import io.rvt.api.spi.PortQuery;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.SendEngine;
import io.rvt.api.spi.Verb;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.osgi.service.component.annotations.Component;

/**
 * A minimal rvt driver with no wire: every RC and UC QP talks to another QP of the same device through rvt-core's
 * software loopback ({@link DriverQp#rucLoopback()}, rdmavt's {@code rvt_ruc_loopback}), as hfi1 and qib do for a
 * destination on the local port. It shows what a driver must provide and nothing more, each callback group an
 * interface it implements (rdmavt's non-NULL function pointers), no callback it does not have:
 * <ul>
 * <li>the groups of the verbs it supports: a {@link SendEngine} ({@link #doSend} runs the loopback in the poster's
 * thread; {@link #scheduleSend}, called with QP locks held, only queues the QP on the driver's one engine thread,
 * which {@link #unregistering} stops), {@link MtuConversion} for modify QP, {@link PortQuery} and {@link GidLookup};
 * it declines {@link Verb#MODIFY_PORT} instead of providing {@code shut_down_port} and {@code cap_mask_chg};</li>
 * <li>no per-QP state ({@code QpPrivate}) and no wait lists or transmit state ({@code QpQuiesce}): a queued run holds
 * a QP reference, which {@code destroyQp} waits for, so rvt-core has nothing of the driver's to reset or quiesce.</li>
 * </ul>
 * Under OSGi the class is a Declarative Services component providing the {@link RvtDriver} service (rvt-core makes
 * it a device); on the module path it is a {@code ServiceLoader} provider (module-info {@code provides}).
 */
@Component(service = RvtDriver.class)
public final class LoopbackDriver implements RvtDriver, SendEngine, MtuConversion, PortQuery, GidLookup {
    /** The LID of the device's one port. */
    static final int LID = 1;

    private volatile ExecutorService engine;

    /** Public and without arguments: DS and ServiceLoader both create it so. */
    public LoopbackDriver() {
    }

    @Override
    public String name() {
        return "loopback";
    }

    @Override
    public DriverParams params() {
        DeviceAttributes props = DeviceAttributes.builder().maxQp(256).maxQpWr(1024).maxSendSge(4).maxRecvSge(4)
                .maxSgeRd(4).maxCq(256).maxCqe(4096).maxPd(64).maxAh(64).maxSrq(16).maxSrqWr(1024).maxSrqSge(4)
                .maxMcastGrp(0).maxMcastQpAttach(0).maxTotalMcastQpAttach(0).maxPkeys(1).maxQpRdAtom(16)
                .maxQpInitRdAtom(16).maxResRdAtom(16).maxMrSize(1L << 32).pageSizeCap(4096).build();
        // qpn_start 1: with rdmavt's allocator the first ordinary QP then gets QPN 2, past QP0/QP1.
        return DriverParams.builder().props(props).lkeyTableSize(10).qpTableSize(64).nports(1).npkeys(1)
                .numCompVectors(1).qpnStart(1).build();
    }

    @Override
    public OperationTable postParms() {
        return OperationTable.standard();
    }

    @Override
    public Set<Verb> unsupportedVerbs() {
        return Set.of(Verb.MODIFY_PORT);
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public void registered(DriverDevice device) {
        device.port(1).lid(LID);
        engine = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "rvt-loopback-engine");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void unregistering(DriverDevice device) {
        // Every QP is in ERR now: let queued runs flush, then the thread ends.
        engine.shutdown();
        try {
            engine.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------ send engine

    @Override
    public void doSend(DriverQp qp) {
        qp.rucLoopback();
    }

    @Override
    public boolean scheduleSend(DriverQp qp) {
        qp.retain(); // the queued run keeps the QP alive; destroy waits for the release
        try {
            engine.execute(() -> {
                try {
                    qp.rucLoopback();
                } finally {
                    qp.release();
                }
            });
            return true;
        } catch (RejectedExecutionException stopped) {
            qp.release();
            return false;
        }
    }

    // ------------------------------------------------------------------ path MTU (no wire: the port's 4096 bytes)

    @Override
    public int getPmtuFromAttr(DriverDevice rdi, DriverQp qp, QpAttr attr) {
        return Math.min(attr.pathMtu().value(), PathMtu.MTU_4096.value());
    }

    @Override
    public int mtuFromQp(DriverDevice rdi, DriverQp qp, int pmtu) {
        return PathMtu.of(pmtu).bytes();
    }

    @Override
    public int mtuToPathMtu(int mtu) {
        return PathMtu.ofBytes(mtu).value();
    }

    // ------------------------------------------------------------------ port

    @Override
    public long getGuidBe(DriverDevice rdi, DriverPort port, int guidIndex) {
        return 0x0002_c903_0000_0000L | port.portNum();
    }

    @Override
    public int queryPortState(DriverDevice rdi, int portNum, PortAttr props) {
        props.state(PortState.ACTIVE).gidTblLen(1).maxMtu(PathMtu.MTU_4096).activeMtu(PathMtu.MTU_4096);
        return 0;
    }
}
