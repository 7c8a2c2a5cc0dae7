package io.rvt.it.app;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.MemoryRegion;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.WorkCompletion;
import io.rvt.cm.Connection;
import io.rvt.cm.ConnectedPair;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.QpOptions;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One end of an RC connection: a PD, a send and a receive CQ, one registered buffer, and an RC QP on port 1 that
 * rvt-cm creates and connects (a REQ/REP/RTU exchange over the devices' GSI QPs, as any application connects).
 */
public final class RcEndpoint {
    private static final int ACCESS = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
    /** CM ports the passive side listens on, one per connection so that connections may be made at once. */
    private static final int FIRST_CM_PORT = 30000;
    private static final int CM_PORTS = 10000;
    private static final AtomicInteger NEXT_CM_PORT = new AtomicInteger();
    /** A hang guard: the CM retries a lost REQ seconds later, so this only ends a connection that cannot come up. */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);

    final Device device;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final ByteBuffer buffer;
    final MemoryRegion mr;
    private final ConnectionManager cm;
    private final int depth;
    private Connection connection;
    QueuePair qp;

    private RcEndpoint(Device device, int bufferBytes, int depth) {
        this.device = device;
        this.depth = depth;
        pd = device.allocPd();
        sendCq = device.createCq(depth, 0, null, null);
        recvCq = device.createCq(depth, 0, null, null);
        buffer = ByteBuffer.allocateDirect(bufferBytes);
        mr = pd.regMr(buffer, ACCESS);
        cm = ConnectionManager.of(device);
    }

    private QpOptions qpOptions() {
        QpOptions o = new QpOptions().pd(pd).sendCq(sendCq).recvCq(recvCq).type(QpType.RC).accessFlags(ACCESS)
                .responderResources(1).initiatorDepth(1).minRnrTimer(12).localAckTimeout(14).retryCount(7)
                .rnrRetryCount(7);
        o.cap().maxSendWr(depth).maxRecvWr(depth).maxSendSge(1).maxRecvSge(1);
        return o;
    }

    /**
     * Creates an endpoint on each device and connects their QPs through the devices' connection managers, a's QP
     * the active side. {@code a} and {@code b} may be the same device: two of its QPs then talk to each other.
     *
     * @param a           the first device
     * @param b           the second device
     * @param bufferBytes each endpoint's buffer
     * @param depth       the send and receive queue depth (and CQ size)
     * @return the two endpoints, a's first
     * @throws io.rvt.cm.CmException if the QPs do not connect (the endpoints are destroyed)
     */
    public static RcEndpoint[] connected(Device a, Device b, int bufferBytes, int depth) {
        RcEndpoint ea = new RcEndpoint(a, bufferBytes, depth);
        RcEndpoint eb = new RcEndpoint(b, bufferBytes, depth);
        try {
            int port = FIRST_CM_PORT + Math.floorMod(NEXT_CM_PORT.getAndIncrement(), CM_PORTS);
            ConnectedPair pair = awaitPolling(ConnectedPair.connectAsync(ea.cm, ea.qpOptions(), eb.cm,
                    eb.qpOptions(), port, 1), ea, eb, port);
            ea.connected(pair.active());
            eb.connected(pair.passive());
        } catch (RuntimeException e) {
            ea.destroy();
            eb.destroy();
            throw e;
        }
        return new RcEndpoint[] {ea, eb};
    }

    /**
     * Waits for the connection while polling both sides' (still empty) send CQs: an empty poll runs the devices'
     * engines (the progress hook), so on a deterministic fabric this thread drives the connection's virtual time, as it
     * drives the traffic after it; a blocking wait would leave that to the fabric's backstop, whose steps land at
     * virtual times that depend on thread timing (RvtFelixIT's replay failed about one run in five so).
     */
    private static ConnectedPair awaitPolling(CompletableFuture<ConnectedPair> f, RcEndpoint ea, RcEndpoint eb,
            int port) {
        WorkCompletion wc = new WorkCompletion();
        long deadline = System.nanoTime() + CONNECT_TIMEOUT.toNanos();
        while (!f.isDone()) {
            if (ea.sendCq.pollCq(wc) || eb.sendCq.pollCq(wc)) {
                throw new IllegalStateException("a completion before any post: " + wc.status());
            }
            if (System.nanoTime() - deadline > 0) {
                f.thenAccept(ConnectedPair::close); // if it comes up after all, take it down again
                throw new IllegalStateException("QPs of " + ea.device.name() + " and " + eb.device.name()
                        + " not connected within " + CONNECT_TIMEOUT.toMillis() + " ms (CM port " + port + ")");
            }
        }
        try {
            return f.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    private void connected(Connection c) {
        connection = c;
        qp = c.qp();
    }

    /**
     * Closes the connection (a DREQ to the peer, the QP destroyed) and releases this endpoint's handle on the CM;
     * also after the device went away, so that the CM lets the removed device go.
     */
    void release() {
        if (connection != null) {
            connection.close();
        }
        cm.close();
    }

    /** {@link #release()}, then destroys the CQs, MR and PD. Only for a device that is still alive. */
    void destroy() {
        release();
        sendCq.destroyCq();
        recvCq.destroyCq();
        mr.deregMr();
        pd.deallocPd();
    }
}
