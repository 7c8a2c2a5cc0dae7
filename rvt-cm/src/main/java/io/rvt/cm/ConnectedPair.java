package io.rvt.cm;

import io.rvt.api.Errno;
import io.rvt.api.Gid;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Two QPs of one process connected to each other through their devices' CMs: the active side connects, the passive
 * side listens on a CM port for exactly this one request and accepts it, and the listener goes once the request is
 * in. This is what a program that runs both ends in one JVM (tests, benchmarks, {@code rvt pingpong} without a peer
 * process) does instead of hand-writing RESET-INIT-RTR-RTS for both QPs; over the wire it is an ordinary
 * REQ/REP/RTU exchange, so both QPs get the attributes a connection between two processes would get.
 */
public final class ConnectedPair implements AutoCloseable {
    private final Connection active;
    private final Connection passive;

    private ConnectedPair(Connection active, Connection passive) {
        this.active = active;
        this.passive = passive;
    }

    /**
     * Starts connecting and returns at once; for callers that drive a simulated fabric (deterministic, or with the
     * network run by the calling thread) until the future is done.
     *
     * @param activeCm   the connecting side's CM
     * @param activeQp   the connecting side's QP options (type RC or UC)
     * @param passiveCm  the listening side's CM (may be the same CM: two QPs of one device)
     * @param passiveQp  the listening side's QP options
     * @param port       the CM port the passive side listens on for this one request
     * @param activeHcaPort the HCA port of both sides' connection (1 on single-port devices)
     * @return a future of the pair; on failure both connections are closed and the future fails with the
     *         {@link CmException}
     * @throws CmException EADDRINUSE if {@code port} is taken on the passive device, EINVAL for bad options
     */
    public static CompletableFuture<ConnectedPair> connectAsync(ConnectionManager activeCm, QpOptions activeQp,
            ConnectionManager passiveCm, QpOptions passiveQp, int port, int activeHcaPort) {
        Gid destination = passiveCm.device().queryGid(activeHcaPort, 0);
        Listener listener = passiveCm.listen(port);
        Connection active;
        try {
            active = activeCm.connectAsync(new ConnectOptions().destination(destination).port(port)
                    .hcaPort(activeHcaPort).qp(activeQp));
        } catch (RuntimeException e) {
            listener.close();
            throw e;
        }
        CompletableFuture<ConnectedPair> pair = listener.nextRequest().thenCompose(req -> {
            listener.close();
            Connection passive = req.acceptAsync(passiveQp, null);
            return CompletableFuture.allOf(active.established(), passive.established())
                    .whenComplete((ok, failure) -> {
                        if (failure != null) {
                            passive.close();
                        }
                    }).thenApply(ok -> new ConnectedPair(active, passive));
        });
        // a failed connect never produces a request: stop listening and fail the pair with the active side's error
        active.established().whenComplete((ok, failure) -> {
            if (failure != null) {
                pair.completeExceptionally(unwrap(failure)); // first, before the closed listener fails the request
                listener.close();
                active.close();
            }
        });
        return pair;
    }

    /**
     * {@link #connectAsync} on HCA port 1, and waits (needs CMs whose timers run on their own and drivers with
     * threads of their own).
     *
     * @param activeCm  the connecting side's CM
     * @param activeQp  the connecting side's QP options
     * @param passiveCm the listening side's CM
     * @param passiveQp the listening side's QP options
     * @param port      the CM port to listen on for this request
     * @param timeout   how long to wait at most
     * @return the connected pair
     * @throws CmException as {@link #connectAsync}, or ETIMEDOUT if the pair is not up within {@code timeout}
     */
    public static ConnectedPair connect(ConnectionManager activeCm, QpOptions activeQp, ConnectionManager passiveCm,
            QpOptions passiveQp, int port, Duration timeout) {
        CompletableFuture<ConnectedPair> f = connectAsync(activeCm, activeQp, passiveCm, passiveQp, port, 1);
        try {
            return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.thenAccept(ConnectedPair::close); // if it comes up after all, take it down again
            throw new CmException(Errno.ETIMEDOUT, "QPs of " + activeCm.device().name() + " and "
                    + passiveCm.device().name() + " not connected within " + timeout.toMillis() + " ms (CM port "
                    + port + ")", null, port, ConnectionManager.serviceId(port), null, null, 0);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new CmException(Errno.ECONNRESET, "connecting QPs of " + activeCm.device().name() + " and "
                    + passiveCm.device().name() + " failed: " + cause, null, port,
                    ConnectionManager.serviceId(port), null, null, 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.thenAccept(ConnectedPair::close);
            throw new CmException(Errno.ETIMEDOUT, "interrupted while connecting QPs of " + activeCm.device().name()
                    + " and " + passiveCm.device().name(), null, port, ConnectionManager.serviceId(port), null,
                    null, 0);
        }
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /** @return the connecting side */
    public Connection active() {
        return active;
    }

    /** @return the listening side */
    public Connection passive() {
        return passive;
    }

    /** Closes both connections (each disconnects and destroys its QP). Idempotent. */
    @Override
    public void close() {
        active.close();
        passive.close();
    }
}
