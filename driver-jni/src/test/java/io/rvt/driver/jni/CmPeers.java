package io.rvt.driver.jni;

import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.QpType;
import io.rvt.cm.CmConfig;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.Connection;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.Listener;
import io.rvt.cm.QpOptions;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.PairConnector;
import io.rvt.testkit.Verbs;
import java.util.concurrent.CompletableFuture;

/**
 * The two halves of an RC connection between two processes through rvt-cm, for {@link NetnsPeer}: the server listens
 * and accepts the first request, the client connects. Each endpoint's QP is asked for what {@link Verbs#spec} asks of
 * a connected pair. (Moved here from testkit, which no longer needs rvt-cm.)
 */
final class CmPeers {
    private final Verbs verbs;
    private final ConnectionManager cm;

    /**
     * @param verbs the helpers to wait with and whose {@link Verbs#spec} the QPs follow
     * @param device the device whose CM is opened (closed with the device), as the kit's CM connector opened it:
     *        seed 0, CM response timeout 16 (268 ms per REQ try, so a lost MAD costs little)
     */
    CmPeers(Verbs verbs, Device device) {
        this.verbs = verbs;
        this.cm = ConnectionManager.of(device, CmConfig.builder().seed(0).cmResponseTimeout(16).build());
    }

    /**
     * Listens on {@code port}, for a process that must tell its peer it listens before the peer connects (a REQ that
     * arrives first is rejected: no one listens).
     */
    Listener listen(int port) {
        return cm.listen(port);
    }

    /** Accepts the first request on {@code listener}, returns once established, and closes the listener. */
    Endpoint accept(Listener listener, QpType type, int bufferBytes, PathMtu maxMtu) {
        int port = listener.port();
        Endpoint.Resources r = verbs.resources(cm.device(), bufferBytes);
        try {
            CompletableFuture<ConnectRequest> request = listener.nextRequest();
            verbs.awaitTrue("a connection request on CM port " + port + " of " + cm.device().name(),
                    request::isDone);
            Connection c = request.join().acceptAsync(options(r, verbs.spec(type, 7, 1)).pathMtu(maxMtu), null);
            verbs.awaitTrue("the connection on CM port " + port + " established", c.established()::isDone);
            return endpoint(r, c.established().join());
        } finally {
            listener.close();
        }
    }

    /** Connects to {@code server}'s CM port {@code port}; returns once established. */
    Endpoint connect(QpType type, int bufferBytes, Gid server, int port, PathMtu maxMtu) {
        Endpoint.Resources r = verbs.resources(cm.device(), bufferBytes);
        Connection c = cm.connectAsync(new ConnectOptions().destination(server).port(port)
                .qp(options(r, verbs.spec(type, 7, 1)).pathMtu(maxMtu)));
        verbs.awaitTrue("the connection to " + server + " CM port " + port + " established", c.established()::isDone);
        return endpoint(r, c.established().join());
    }

    private static Endpoint endpoint(Endpoint.Resources r, Connection c) {
        return Endpoint.of(r, new PairConnector.Connected(c.qp(), c.sendPsn(), c));
    }

    /** @return rvt-cm's options for a QP on {@code r} as {@code spec} asks */
    static QpOptions options(Endpoint.Resources r, PairConnector.Spec spec) {
        QpOptions o = new QpOptions().pd(r.pd).sendCq(r.sendCq).recvCq(r.recvCq).type(spec.type())
                .accessFlags(spec.accessFlags()).responderResources(spec.rdAtomic()).initiatorDepth(spec.rdAtomic())
                .retryCount(spec.retryCount()).rnrRetryCount(spec.rnrRetry()).minRnrTimer(spec.minRnrTimer())
                .localAckTimeout(spec.localAckTimeout());
        o.cap().maxSendWr(spec.queueDepth()).maxRecvWr(spec.queueDepth()).maxSendSge(spec.maxSge())
                .maxRecvSge(spec.maxSge());
        return o;
    }
}
