package io.rvt.bench;

import io.rvt.api.Device;
import io.rvt.api.QueuePair;
import io.rvt.cm.ConnectedPair;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.QpOptions;
import java.util.concurrent.CompletableFuture;

/**
 * A benchmark's two RC QPs on two devices, connected through rvt-cm as any application connects them; the
 * connection is made once per trial, outside what is measured.
 */
final class CmPair implements AutoCloseable {
    /** The CM port the second device listens on while the pair connects. */
    private static final int PORT = 18515;
    /** Wall-clock bound on connecting (the CM's first REQ retry is seconds away; this is only a hang guard). */
    private static final long DEADLINE_NANOS = 60_000_000_000L;

    private final ConnectionManager cm0;
    private final ConnectionManager cm1;
    private final ConnectedPair pair;

    /**
     * @param d0       the connecting device
     * @param o0       its QP's options
     * @param d1       the listening device
     * @param o1       its QP's options
     * @param progress run while waiting (the benchmark thread's share of the network when it runs it; else a spin)
     */
    CmPair(Device d0, QpOptions o0, Device d1, QpOptions o1, Runnable progress) {
        cm0 = ConnectionManager.of(d0);
        cm1 = ConnectionManager.of(d1);
        CompletableFuture<ConnectedPair> f = ConnectedPair.connectAsync(cm0, o0, cm1, o1, PORT, 1);
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (!f.isDone()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the benchmark's QPs did not connect within 60 s");
            }
            progress.run();
        }
        pair = f.join();
    }

    /** @return the connecting device's QP */
    QueuePair first() {
        return pair.active().qp();
    }

    /** @return the listening device's QP */
    QueuePair second() {
        return pair.passive().qp();
    }

    /** Disconnects, destroys both QPs and releases the CMs. */
    @Override
    public void close() {
        pair.close();
        cm0.close();
        cm1.close();
    }
}
