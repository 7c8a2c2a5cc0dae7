package io.rvt.cm.impl;

import io.rvt.api.Errno;
import io.rvt.api.QueuePair;
import io.rvt.cm.CmException;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.ConnectRequestHandler;
import io.rvt.cm.Listener;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * A listen on one service ID: connection requests queue here (or go to the handler); a datagram listener answers
 * SIDR_REQs with its UD QP. Guarded by the engine's lock.
 */
final class ListenerImpl implements Listener {
    final CmEngine engine;
    final int port;
    final long serviceId;
    final ConnectRequestHandler handler;
    final QueuePair udQp;
    final int udQkey;
    final byte[] sidrPrivate;
    final ArrayDeque<ConnId> pending = new ArrayDeque<>();
    final ArrayDeque<CompletableFuture<ConnectRequest>> waiting = new ArrayDeque<>();
    /** The requests not answered yet, handed to the application or not: at most the CM's listen backlog. */
    int unanswered;
    boolean open = true;

    ListenerImpl(CmEngine engine, int port, long serviceId, ConnectRequestHandler handler, QueuePair udQp,
            int udQkey, byte[] sidrPrivate) {
        this.engine = engine;
        this.port = port;
        this.serviceId = serviceId;
        this.handler = handler;
        this.udQp = udQp;
        this.udQkey = udQkey;
        this.sidrPrivate = sidrPrivate;
    }

    /** A new request takes a place in the backlog. */
    void hold(ConnId id) {
        id.held = true;
        unanswered++;
    }

    /** A request was answered, withdrawn or expired: it leaves the queue and frees its place in the backlog. */
    void release(ConnId id) {
        if (id.held) {
            id.held = false;
            unanswered--;
        }
        pending.remove(id);
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public long serviceId() {
        return serviceId;
    }

    @Override
    public ConnectRequest accept(Duration timeout) {
        CompletableFuture<ConnectRequest> f = nextRequest();
        try {
            return f.get(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw ConnId.rethrow(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            if (!engine.listeners.withdraw(this, f)) {
                return f.join(); // a request came just now
            }
            throw new CmException(Errno.ETIMEDOUT, "no connection request within " + timeout.toMillis() + " ms",
                    null, port, serviceId, null, null, 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            engine.listeners.withdraw(this, f);
            throw new CmException(Errno.ETIMEDOUT, "interrupted while waiting for a connection request", null,
                    port, serviceId, null, null, 0);
        }
    }

    @Override
    public CompletableFuture<ConnectRequest> nextRequest() {
        return engine.listeners.nextRequest(this);
    }

    @Override
    public boolean isOpen() {
        synchronized (engine) {
            return open;
        }
    }

    @Override
    public void close() {
        engine.listeners.close(this);
    }

    @Override
    public String toString() {
        return "Listener[port " + port + ", service ID 0x" + Long.toHexString(serviceId)
                + (udQp != null ? ", UD QP 0x" + Integer.toHexString(udQp.qpNum()) : "") + "]";
    }
}
