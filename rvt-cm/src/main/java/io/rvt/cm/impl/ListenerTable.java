package io.rvt.cm.impl;

import io.rvt.api.Errno;
import io.rvt.api.QpAttr;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.cm.CmException;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.ConnectRequestHandler;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.Listener;
import io.rvt.cm.RejectReason;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A CM's listeners by service ID: listening (one listener per port, EADDRINUSE otherwise), handing connection
 * requests to those who wait for them, and closing. Guarded by the engine's monitor.
 */
final class ListenerTable {
    private final CmEngine engine;
    private final Map<Long, ListenerImpl> byServiceId = new HashMap<>();

    ListenerTable(CmEngine engine) {
        this.engine = engine;
    }

    /** @return the listener of a service ID, or null; the engine's monitor held */
    ListenerImpl get(long serviceId) {
        return byServiceId.get(serviceId);
    }

    /** @return the number of listeners; the engine's monitor held */
    int size() {
        return byServiceId.size();
    }

    Listener listen(int port, ConnectRequestHandler handler, QueuePair udQp, byte[] sidrPrivate) {
        long sid = CmEngine.serviceIdChecked(port, udQp != null);
        int qkey = 0;
        if (udQp != null) {
            if (udQp.type() != QpType.UD || udQp.device() != engine.device) {
                throw new CmException(Errno.EINVAL, "listenDatagram needs a UD QP of " + engine.device.name()
                        + ", got " + udQp.type() + " QP of " + udQp.device().name(), null, port, sid, null, null, 0);
            }
            qkey = udQp.queryQp(new QpAttr()).qkey();
            CmEngine.checkPrivate(sidrPrivate, ConnectionManager.MAX_SIDR_REP_PRIVATE_DATA, "SIDR_REP", port, sid);
        }
        synchronized (engine) {
            engine.checkOpen(port, sid);
            if (byServiceId.containsKey(sid)) {
                throw new CmException(Errno.EADDRINUSE, "port " + port + " of " + engine.device.name()
                        + " already has a listener", null, port, sid, null, null, 0);
            }
            ListenerImpl l = new ListenerImpl(engine, port, sid, handler, udQp, qkey,
                    sidrPrivate == null ? new byte[0] : sidrPrivate.clone());
            byServiceId.put(sid, l);
            return l;
        }
    }

    Listener listenDatagram(int port, QueuePair udQp, byte[] privateData) {
        if (udQp == null) {
            throw new CmException(Errno.EINVAL, "listenDatagram: the UD QP is null", null, port, 0, null, null, 0);
        }
        return listen(port, null, udQp, privateData);
    }

    CompletableFuture<ConnectRequest> nextRequest(ListenerImpl l) {
        CompletableFuture<ConnectRequest> f = new CompletableFuture<>();
        synchronized (engine) {
            if (l.handler != null || l.udQp != null) {
                throw new CmException(Errno.EINVAL, "this listener hands its requests to a handler", null, l.port,
                        l.serviceId, null, null, 0);
            }
            if (!l.open) {
                f.completeExceptionally(new CmException(Errno.ENODEV, "the listener is closed", null, l.port,
                        l.serviceId, null, null, 0));
                return f;
            }
            ConnId id = l.pending.poll();
            if (id != null) {
                f.complete(id.request);
            } else {
                l.waiting.add(f);
            }
        }
        return f;
    }

    /** @return true if the waiter was still waiting (and is no longer) */
    boolean withdraw(ListenerImpl l, CompletableFuture<ConnectRequest> f) {
        synchronized (engine) {
            return l.waiting.remove(f);
        }
    }

    /** Closes a listener: its pending requests are rejected (invalid service ID), its waiters fail with ENODEV. */
    void close(ListenerImpl l) {
        synchronized (engine) {
            if (!l.open) {
                return;
            }
            l.open = false;
            byServiceId.remove(l.serviceId, l);
            for (ConnId id; (id = l.pending.poll()) != null; ) {
                engine.rejectNow(id, RejectReason.INVALID_SERVICE_ID, null);
            }
            failWaiters(l, "the listener was closed");
        }
        engine.drain();
    }

    /** Closes every listener, the CM going away; the engine's monitor held. */
    void closeAll() {
        for (ListenerImpl l : new ArrayList<>(byServiceId.values())) {
            l.open = false;
            failWaiters(l, "the connection manager was closed");
            l.pending.clear();
        }
        byServiceId.clear();
    }

    private void failWaiters(ListenerImpl l, String why) {
        CmException err = new CmException(Errno.ENODEV, why, null, l.port, l.serviceId, null, null, 0);
        for (CompletableFuture<ConnectRequest> f; (f = l.waiting.poll()) != null; ) {
            CompletableFuture<ConnectRequest> w = f;
            engine.later(() -> w.completeExceptionally(err));
        }
    }
}
