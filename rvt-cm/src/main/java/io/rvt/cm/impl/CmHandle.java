package io.rvt.cm.impl;

import io.rvt.api.Device;
import io.rvt.api.Errno;
import io.rvt.api.QueuePair;
import io.rvt.cm.CmConfig;
import io.rvt.cm.CmEventListener;
import io.rvt.cm.CmException;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.ConnectRequestHandler;
import io.rvt.cm.Connection;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.DatagramPeer;
import io.rvt.cm.Listener;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** One user's handle on a device's {@link CmEngine}: every call goes to the engine until the handle is closed. */
final class CmHandle implements ConnectionManager {
    private final CmEngine engine;
    private final AtomicBoolean open = new AtomicBoolean(true);

    CmHandle(CmEngine engine) {
        this.engine = engine;
    }

    /** @return the engine behind the handle (for tests of this package) */
    CmEngine engineRef() {
        return engine;
    }

    private CmEngine engine() {
        if (!open.get() || !engine.isOpen()) {
            throw new CmException(Errno.ENODEV, "connection manager of " + engine.device().name() + " is closed",
                    null, 0, 0, null, null, 0);
        }
        return engine;
    }

    @Override
    public Device device() {
        return engine.device();
    }

    @Override
    public CmConfig config() {
        return engine.config();
    }

    @Override
    public Listener listen(int port) {
        return engine().listeners.listen(port, null, null, null);
    }

    @Override
    public Listener listen(int port, ConnectRequestHandler handler) {
        if (handler == null) {
            throw new CmException(Errno.EINVAL, "listen: the handler is null", null, port, 0, null, null, 0);
        }
        return engine().listeners.listen(port, handler, null, null);
    }

    @Override
    public Listener listenDatagram(int port, QueuePair udQp, byte[] privateData) {
        return engine().listeners.listenDatagram(port, udQp, privateData);
    }

    @Override
    public Connection connectAsync(ConnectOptions options) {
        return engine().connect(options);
    }

    @Override
    public Connection connect(ConnectOptions options, Duration timeout) {
        return ConnId.awaitOrClose(engine().connect(options), timeout);
    }

    @Override
    public CompletableFuture<DatagramPeer> resolveDatagramAsync(ConnectOptions options) {
        return engine().sidr.resolve(options);
    }

    @Override
    public void addEventListener(CmEventListener listener) {
        engine.addEventListener(listener);
    }

    @Override
    public boolean removeEventListener(CmEventListener listener) {
        return engine.removeEventListener(listener);
    }

    @Override
    public int idCount() {
        return engine.idCount();
    }

    @Override
    public java.util.Map<String, Long> counters() {
        return engine.counters();
    }

    @Override
    public boolean isOpen() {
        return open.get() && engine.isOpen();
    }

    @Override
    public void close() {
        if (open.compareAndSet(true, false)) {
            CmRegistry.release(engine);
        }
    }

    @Override
    public String toString() {
        return "ConnectionManager[" + engine.device().name() + (isOpen() ? "" : ", closed") + "]";
    }
}
