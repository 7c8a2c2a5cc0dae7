package io.rvt.bench;

import io.rvt.api.DeviceAttributes;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.PortState;
import io.rvt.api.QpAttr;
import io.rvt.api.QpType;
import io.rvt.api.WcStatus;
import io.rvt.api.spi.GidLookup;
import io.rvt.api.spi.MtuConversion;
import io.rvt.api.spi.PortModify;
import io.rvt.api.spi.PortQuery;
import io.rvt.api.spi.QpPrivate;
import io.rvt.api.spi.QpQuiesce;
import io.rvt.api.spi.SendEngine;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.OperationTable;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.SendQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The smallest driver the benchmarks need: its send engine either completes every posted WQE at once (measuring
 * rvt-core's post/complete/poll path alone) or runs rdmavt's software loopback.
 */
public final class BenchDriver implements RvtDriver, SendEngine, QpPrivate, QpQuiesce, MtuConversion, PortQuery,
        PortModify, GidLookup {
    /** What {@code do_send} does. */
    public enum Mode {
        /**
         * Complete each posted WQE with SUCCESS, as a driver whose hardware finished instantly (the GSI QP's MADs
         * still loop back, so that rvt-cm connects the benchmark's QPs).
         */
        IMMEDIATE,
        /** Run {@code rvt_ruc_loopback}. */
        LOOPBACK
    }

    private final Mode mode;
    private final ExecutorService engine = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "bench-send-engine");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param mode what the send engine does
     */
    public BenchDriver(Mode mode) {
        this.mode = mode;
    }

    @Override
    public String name() {
        return "bench%d";
    }

    @Override
    public DriverParams params() {
        return DriverParams.builder()
                .props(DeviceAttributes.builder().maxQp(64).maxQpWr(4096).maxSendSge(4).maxRecvSge(4).maxCq(64)
                        .maxCqe(65536).maxPd(16).maxAh(16).maxSrq(4).maxSrqWr(4096).maxSrqSge(4).maxMcastGrp(4)
                        .maxMcastQpAttach(4).maxQpRdAtom(16).maxQpInitRdAtom(16).nodeGuid(0xBE0C4L).build())
                .lkeyTableSize(10).qpTableSize(64).qpnStart(1).nports(1).npkeys(1).build();
    }

    @Override
    public OperationTable postParms() {
        return OperationTable.standard();
    }

    @Override
    public void registered(DriverDevice device) {
        DriverPort p = device.port(1);
        p.lid(1);
    }

    @Override
    public void unregistering(DriverDevice device) {
        engine.shutdownNow();
    }

    @Override
    public boolean scheduleSend(DriverQp qp) {
        engine.execute(() -> doSend(qp));
        return true;
    }

    @Override
    public boolean scheduleSendNoLock(DriverQp qp) {
        doSend(qp);
        return true;
    }

    @Override
    public void doSend(DriverQp qp) {
        if (mode == Mode.LOOPBACK || qp.type() == QpType.GSI) { // the CM's MADs always loop back
            qp.rucLoopback();
            return;
        }
        // Like hfi1's send engine, complete under the send lock alone. The send ring is the engine's state (a
        // benchmark's null wire completes it itself; the class path reaches io.rvt.api.spi.engine).
        SendQueue sq = EngineQp.of(qp).sendQueue();
        qp.sendLock().lock();
        try {
            int head = sq.head();
            while (sq.last() != head) {
                sq.sendComplete(sq.swqe(sq.last()), WcStatus.SUCCESS);
            }
        } finally {
            qp.sendLock().unlock();
        }
    }

    @Override
    public Object qpPrivAlloc(DriverDevice rdi, DriverQp qp) {
        return null;
    }

    @Override
    public void qpPrivFree(DriverDevice rdi, DriverQp qp) {
    }

    @Override
    public void notifyQpReset(DriverQp qp) {
    }

    @Override
    public void notifyRestartRc(DriverQp qp, int psn, int wait) {
    }

    @Override
    public int getPmtuFromAttr(DriverDevice rdi, DriverQp qp, QpAttr attr) {
        return attr.pathMtu().value();
    }

    @Override
    public void flushQpWaiters(DriverQp qp) {
    }

    @Override
    public void stopSendQueue(DriverQp qp) {
    }

    @Override
    public void quiesceQp(DriverQp qp) {
    }

    @Override
    public void notifyErrorQp(DriverQp qp) {
    }

    @Override
    public int mtuFromQp(DriverDevice rdi, DriverQp qp, int pmtu) {
        return PathMtu.of(pmtu).bytes();
    }

    @Override
    public int mtuToPathMtu(int mtu) {
        return PathMtu.ofBytes(mtu).value();
    }

    @Override
    public long getGuidBe(DriverDevice rdi, DriverPort port, int guidIndex) {
        return 0xBE0C4L;
    }

    @Override
    public int queryPortState(DriverDevice rdi, int portNum, PortAttr props) {
        props.state(PortState.ACTIVE).activeMtu(PathMtu.MTU_4096).maxMtu(PathMtu.MTU_4096).gidTblLen(1);
        return 0;
    }

    @Override
    public int shutDownPort(DriverDevice rdi, int portNum) {
        return 0;
    }

    @Override
    public void capMaskChg(DriverDevice rdi, int portNum) {
    }
}
