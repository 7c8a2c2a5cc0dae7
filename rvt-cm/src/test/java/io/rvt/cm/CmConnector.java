package io.rvt.cm;

import io.rvt.api.Device;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.PairConnector;
import io.rvt.testkit.Verbs;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The conformance kit's pairs connected through rvt-cm, as applications connect: a REQ/REP/RTU exchange over the
 * devices' GSI QPs ({@link ConnectedPair#connectAsync}), one CM per device opened on first use with the fixture's
 * configuration and closed with {@link #close()} (each connection's QP destroyed, a DREQ sent for each established
 * one), each pair on the next CM port. Public in rvt-cm's test-jar: the loopback driver's single-device fixture
 * connects two QPs of its one device with it, one CM whose REQ, REP and RTU go from its GSI QP to itself.
 */
public final class CmConnector implements PairConnector {
    /** The first CM port a pair listens on; each pair takes the next. */
    private static final int FIRST_CM_PORT = 20000;

    private final CmConfig config;
    private final Map<Device, ConnectionManager> cms = new IdentityHashMap<>();
    private int port = FIRST_CM_PORT;

    /** @param config how each device's CM runs (a virtual-time fixture's timers, the seed) */
    public CmConnector(CmConfig config) {
        this.config = config;
    }

    /**
     * @param seed the fixture's seed, so that a seeded run stays a function of its seed
     * @return the configuration the kit's CM pairs run with on real time: CM response timeout 16, 268 ms per REQ
     *         try, short enough that a lost MAD costs little in a test
     */
    public static CmConfig.Builder config(long seed) {
        return CmConfig.builder().seed(seed).cmResponseTimeout(16);
    }

    @Override
    public Connected[] connect(Endpoint.Resources a, Endpoint.Resources b, Spec spec, Verbs verbs) {
        CompletableFuture<ConnectedPair> f = ConnectedPair.connectAsync(cm(a.device), options(a, spec),
                cm(b.device), options(b, spec), port++, 1);
        verbs.awaitTrue("the QPs of " + a.device.name() + " and " + b.device.name() + " connected through rvt-cm",
                f::isDone);
        ConnectedPair pair = f.join();
        return new Connected[] {connected(pair.active()), connected(pair.passive())};
    }

    private static Connected connected(Connection c) {
        return new Connected(c.qp(), c.sendPsn(), c);
    }

    private ConnectionManager cm(Device device) {
        return cms.computeIfAbsent(device, d -> ConnectionManager.of(d, config));
    }

    private static QpOptions options(Endpoint.Resources r, Spec spec) {
        QpOptions o = new QpOptions().pd(r.pd).sendCq(r.sendCq).recvCq(r.recvCq).type(spec.type())
                .accessFlags(spec.accessFlags()).responderResources(spec.rdAtomic()).initiatorDepth(spec.rdAtomic())
                .retryCount(spec.retryCount()).rnrRetryCount(spec.rnrRetry()).minRnrTimer(spec.minRnrTimer())
                .localAckTimeout(spec.localAckTimeout());
        o.cap().maxSendWr(spec.queueDepth()).maxRecvWr(spec.queueDepth()).maxSendSge(spec.maxSge())
                .maxRecvSge(spec.maxSge());
        return o;
    }

    @Override
    public void close() {
        cms.values().forEach(ConnectionManager::close);
        cms.clear();
    }
}
