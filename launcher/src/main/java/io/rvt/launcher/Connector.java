package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.QueuePair;
import io.rvt.cm.CmConfig;
import io.rvt.cm.Connection;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.DatagramPeer;
import io.rvt.cm.Listener;
import io.rvt.cm.QpOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The launcher's connections, all made by rvt-cm ({@link ConnectionManager}): a listener on the responder's device and
 * a connect from the requester's, in one process or two; for UD, a SIDR service on each side's UD QP and a SIDR
 * resolve of the other's. The CM builds RC and UC QPs from {@link QpOptions} and brings them to RTS; nothing here
 * writes a {@code QpAttr}. Waits run the host's network while they wait ({@link Host#progress()}), so that they also
 * work when the command's thread is the simulated network ({@code --threading invoker}).
 */
final class Connector implements AutoCloseable {
    /**
     * The CM response timeout code of the launcher's CMs: 4.096 us x 2^18 = 1.07 s per try, 15 tries (librdmacm's
     * 4.3 s would make a lost REQ cost seconds of a short test).
     */
    static final int CM_RESPONSE_TIMEOUT = 18;
    /** How long a connection may take, the CM's own retries included. */
    static final Duration DEADLINE = Duration.ofSeconds(60);

    private final Host host;
    private final CmConfig config;
    private final Map<Device, ConnectionManager> cms = new IdentityHashMap<>();
    private final Map<String, Listener> listeners = new HashMap<>();
    private final List<Listener> datagramServices = new ArrayList<>();
    /** Every connection made here, for {@link #disconnectAll()}. */
    private final List<Connection> made = new ArrayList<>();
    /** How long {@link #disconnectAll()} waits for each DREP. */
    private static final Duration GOODBYE = Duration.ofSeconds(5);

    /** A wait of {@link #await} that ran out of patience. */
    static final class WaitTimeout extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        WaitTimeout(String message) {
            super(message);
        }
    }

    /**
     * @param host the devices' host: its CM configuration and its network, run while waiting
     */
    Connector(Host host) {
        this.host = host;
        this.config = host.cmConfig();
    }

    /**
     * @param device a device
     * @return its CM, acquired on first use and released by {@link #close()}
     */
    ConnectionManager cm(Device device) {
        return cms.computeIfAbsent(device, d -> ConnectionManager.of(d, config));
    }

    /**
     * @param device the responder's device
     * @param port the CM port
     * @return the listener on it, made on first use
     * @throws IllegalStateException if the port is taken (rvt-cm's EADDRINUSE, quoted)
     */
    Listener listen(Device device, int port) {
        return listeners.computeIfAbsent(device.name() + ":" + port, k -> cm(device).listen(port));
    }

    /**
     * Connects a QP of {@code from} to the listener of {@code to} in this process and waits until both ends are
     * established.
     *
     * @param from the requester's endpoint
     * @param fromQp how to build its QP
     * @param to the responder's endpoint (its device listens on {@code port})
     * @param toQp how to build its QP
     * @param port the CM port
     * @return the requester's connection and the responder's
     */
    Connection[] pair(Endpoint from, QpOptions fromQp, Endpoint to, QpOptions toQp, int port) {
        Listener l = listen(to.device, port);
        Connection active = cm(from.device).connectAsync(from.connectOptions(to.destination(), port, fromQp, null));
        try {
            ConnectRequest req = await(l.nextRequest(), "a connection request on " + to.device.name() + " port "
                    + port);
            Connection passive = req.acceptAsync(toQp, null);
            await(passive.established(), "the connection from " + from.device.name());
            await(active.established(), "the connection to " + to.device.name());
            from.track(active);
            to.track(passive);
            made.add(active);
            made.add(passive);
            return new Connection[] {active, passive};
        } catch (RuntimeException e) {
            active.close();
            throw e;
        }
    }

    /**
     * Connects to a listener in another process and waits until established.
     *
     * @param from this process's endpoint
     * @param qp how to build the QP
     * @param destination the server's address
     * @param port its CM port
     * @param privateData the REQ's private data
     * @return the connection
     */
    Connection connect(Endpoint from, QpOptions qp, java.net.InetAddress destination, int port, byte[] privateData) {
        ConnectOptions o = from.connectOptions(destination, port, qp, privateData);
        Connection c = cm(from.device).connectAsync(o);
        try {
            await(c.established(), "the connection to " + destination.getHostAddress() + " port " + port);
        } catch (WaitTimeout e) {
            // the CM's own retries end an unanswered REQ first: a server that asked for more time (MRA) and has not
            // answered since is busy
            boolean asked = c.state() == io.rvt.cm.CmState.MRA_REQ_RCVD;
            c.close();
            throw new WaitTimeout(e.getMessage() + (asked ? " (the server took the request but has not answered "
                    + "it: busy with another client?)" : ""));
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        from.track(c);
        made.add(c);
        return c;
    }

    /**
     * @param l a listener
     * @param patience how long to wait (a server waits for its client)
     * @return the next connection request on it
     */
    ConnectRequest request(Listener l, Duration patience) {
        return await(l.nextRequest(), "a client on port " + l.port(), patience);
    }

    /**
     * Accepts a request and waits until established.
     *
     * @param at the server's endpoint
     * @param req the request
     * @param qp how to build the QP
     * @param privateData the REP's private data, or null
     * @param beforeEstablished runs on the new QP as soon as it exists, before the wait (post receives there: the
     *                          client may send as soon as the REP is out)
     * @return the connection
     */
    Connection accept(Endpoint at, ConnectRequest req, QpOptions qp, byte[] privateData,
            java.util.function.Consumer<QueuePair> beforeEstablished) {
        Connection c = req.acceptAsync(qp, privateData);
        try {
            beforeEstablished.accept(c.qp());
            await(c.established(), "the connection from " + req.remoteGid());
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        at.track(c);
        made.add(c);
        return c;
    }

    /**
     * Serves a UD QP under a CM port (SIDR), until {@link #close()}.
     *
     * @param device its device
     * @param port the CM port
     * @param udQp the QP, in RTS with its Q_Key
     */
    void serveDatagram(Device device, int port, QueuePair udQp) {
        datagramServices.add(cm(device).listenDatagram(port, udQp, null));
    }

    /**
     * Resolves the UD QP another endpoint serves under a CM port (SIDR).
     *
     * @param from this side's endpoint
     * @param destination the other side's address (a {@link io.rvt.api.Gid} or an {@link java.net.InetAddress})
     * @param port the CM port
     * @return the peer's GID, LID, QPN and Q_Key
     */
    DatagramPeer resolveDatagram(Endpoint from, Object destination, int port) {
        ConnectOptions o = from.connectOptions(destination, port, new QpOptions(), null);
        return await(cm(from.device).resolveDatagramAsync(o), "the UD service on port " + port + " of "
                + destination);
    }

    /**
     * @param future what to wait for
     * @param what names it in an error
     * @param <T> its result
     * @return its result
     */
    <T> T await(CompletableFuture<T> future, String what) {
        return await(future, what, DEADLINE);
    }

    /**
     * @param future what to wait for
     * @param what names it in an error
     * @param patience how long to wait
     * @param <T> its result
     * @return its result
     */
    <T> T await(CompletableFuture<T> future, String what, Duration patience) {
        try {
            if (!host.threading().ownThreads()) {
                // this thread runs the network (invoker, or the progress hook): run it until the CM is done
                long deadline = System.nanoTime() + patience.toNanos();
                while (!future.isDone()) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new TimeoutException();
                    }
                    host.progress();
                }
                return future.join();
            }
            return future.get(patience.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new WaitTimeout("gave up waiting for " + what + " after " + seconds(patience));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + what, e);
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(what + ": " + cause, cause);
        }
    }

    /** @return a patience in whole seconds, or in milliseconds below a second ({@code 60 s}, {@code 200 ms}) */
    static String seconds(Duration d) {
        return d.compareTo(Duration.ofSeconds(1)) >= 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** Stops listening and serving UD QPs: the connections made stay up, and the ports are free again. */
    void stopListening() {
        listeners.values().forEach(Listener::close);
        listeners.clear();
        datagramServices.forEach(Listener::close);
        datagramServices.clear();
    }

    /**
     * Disconnects every connection made here and waits (up to 5 s each) until it is down, DREP received, so that no
     * MAD is in flight when the CMs are released ({@link #close()}); failures are ignored, a peer may be gone.
     */
    void disconnectAll() {
        for (Connection c : made) {
            c.disconnect();
        }
        for (Connection c : made) {
            try {
                await(c.disconnected(), "the disconnect", GOODBYE);
            } catch (RuntimeException e) {
                // a peer that is gone cannot answer: the CM's retries end it
            }
        }
        made.clear();
    }

    /**
     * Disconnects what is still connected ({@link #disconnectAll()}), closes the listeners and UD services and
     * releases the CMs; the endpoints destroy the QPs.
     */
    @Override
    public void close() {
        disconnectAll();
        stopListening();
        cms.values().forEach(ConnectionManager::close);
        cms.clear();
    }

    /**
     * @return the CM configuration for a host: real-time timers with {@link #CM_RESPONSE_TIMEOUT}
     */
    static CmConfig realTime() {
        return CmConfig.builder().cmResponseTimeout(CM_RESPONSE_TIMEOUT).build();
    }
}
