package io.rvt.it.loopback;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.MemoryRegion;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpState;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.CmConfig;
import io.rvt.cm.CmEventType;
import io.rvt.cm.CmException;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.ConnectedPair;
import io.rvt.cm.Connection;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.QpOptions;
import io.rvt.cm.RejectReason;
import io.rvt.core.RvtDevice;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * rvt-cm on the loopback driver's one device, what {@link LoopbackFixture#CM_CONNECTED} runs the conformance kit
 * over: one CM whose GSI QP sends each REQ, REP, RTU, DREQ and DREP to its own port's GID and QP1 and receives it
 * there (rvt-core's {@code RvtUdLoopback}), the REQ finding the listener of the same CM.
 */
class LoopbackCmTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private RvtDevice device;
    private ConnectionManager cm;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private final ByteBuffer buf = ByteBuffer.allocateDirect(4096);
    private MemoryRegion mr;

    @BeforeEach
    void open() {
        device = RvtDevice.register(new LoopbackDriver());
        // CM response timeout 20, 4.3 s per try: no MAD is lost here, so every MAD counted is a first try even when a
        // busy machine stalls a thread for a while
        cm = ConnectionManager.of(device, CmConfig.builder().seed(28).cmResponseTimeout(20).build());
        pd = device.allocPd();
        cq = device.createCq(64, 0, null, null);
        mr = pd.regMr(buf, AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
    }

    @AfterEach
    void close() {
        cm.close();
        device.unregister();
    }

    @Test
    void shouldConnectTwoQpsOfTheOneDeviceThroughItsOwnGsiQp() {
        ConnectedPair pair = ConnectedPair.connect(cm, qp(), cm, qp(), 20000, WAIT);
        Connection active = pair.active();
        Connection passive = pair.passive();
        Gid own = device.queryGid(1, 0);
        assertThat(active.remoteGid()).as("the active side's peer").isEqualTo(own);
        assertThat(passive.remoteGid()).as("the passive side's peer").isEqualTo(own);
        assertThat(active.remoteQpn()).isEqualTo(passive.qp().qpNum());
        assertThat(passive.remoteQpn()).isEqualTo(active.qp().qpNum());
        assertThat(active.remoteCommId()).isEqualTo(passive.localCommId()).isNotEqualTo(active.localCommId());
        assertThat(active.sendPsn()).isEqualTo(passive.receivePsn());
        assertThat(active.qp().state()).isEqualTo(QpState.RTS);
        assertThat(passive.qp().state()).isEqualTo(QpState.RTS);
        Map<String, Long> c = cm.counters();
        assertThat(c.get("mads_sent")).as("REQ, REP and RTU at least: %s", c).isGreaterThanOrEqualTo(3);
        assertThat(c.get("mads_received")).as("every MAD sent came back to the port: %s", c)
                .isEqualTo(c.get("mads_sent"));

        buf.put(64, (byte) 42);
        passive.qp().postRecv(new RecvWorkRequest(1).wrId(7).sge(mr, 0, 64));
        active.qp().postSend(new SendWorkRequest(1).wrId(5).opcode(WrOpcode.SEND).sge(mr, 64, 16));
        WorkCompletion recv = pollFor(WcOpcode.RECV);
        assertThat(recv.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(recv.wrId()).isEqualTo(7);
        assertThat(buf.get(0)).isEqualTo((byte) 42);

        active.disconnect();
        assertThat(await(passive.disconnected()).type()).as("DREQ from the same port")
                .isEqualTo(CmEventType.DISCONNECTED);
        assertThat(await(active.disconnected()).type()).as("DREP from the same port")
                .isEqualTo(CmEventType.DISCONNECTED);
        assertThat(cm.counters().get("mads_dropped")).isZero();
        pair.close();
    }

    @Test
    void shouldEndBothSidesOfAnEstablishedPairWhenTheOneCmCloses() {
        ConnectedPair pair = ConnectedPair.connect(cm, qp(), cm, qp(), 20000, WAIT);
        cm.close(); // what the kit's teardown does before the device goes: its DREQ goes to the closing CM itself
        assertThat(await(pair.active().disconnected()).type()).as("the active side")
                .isEqualTo(CmEventType.DISCONNECTED);
        assertThat(await(pair.passive().disconnected()).type()).as("the passive side")
                .isEqualTo(CmEventType.DISCONNECTED);
        assertThat(cm.isOpen()).isFalse();
    }

    @Test
    void shouldRejectARequestToItselfForAPortItDoesNotListenOn() {
        cm.listen(20000);
        Connection c = cm.connectAsync(new ConnectOptions().destination(device.queryGid(1, 0)).port(20001).qp(qp()));
        CmException e = failure(c.established());
        assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED);
        assertThat(e.rejectReason()).isEqualTo(RejectReason.INVALID_SERVICE_ID);
        assertThat(cm.counters().get("mads_sent")).as("one REQ and its REJ, no retry: %s", cm.counters())
                .isEqualTo(2);
        c.close();
    }

    private QpOptions qp() {
        return new QpOptions().pd(pd).cq(cq);
    }

    private WorkCompletion pollFor(WcOpcode opcode) {
        WorkCompletion wc = new WorkCompletion();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (cq.pollCq(wc) && wc.opcode() == opcode) {
                return wc;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no " + opcode + " completion within " + WAIT);
    }

    private static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("not done within " + WAIT, e);
        }
    }

    private static CmException failure(CompletableFuture<?> f) {
        try {
            f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(CmException.class);
            return (CmException) e.getCause();
        } catch (Exception e) {
            throw new AssertionError("not done within " + WAIT, e);
        }
        throw new AssertionError("connected, expected a REJ");
    }
}
