package io.rvt.cm;

import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.QueuePair;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The connection manager of one device: the IBTA Communication Manager (IBTA vol 1 ch 12) over the GSI QP (QP1) of
 * each of its ports, with rdma_cm's IP port spaces (RDMA_PS_TCP service IDs for connections, RDMA_PS_UDP for SIDR,
 * and the IP CM private-data header, IBTA Annex A11) so that on RoCEv2 it interoperates with Linux {@code rdma_cm}.
 * It plays the part of librdmacm's {@code rdma_event_channel} + {@code rdma_cm_id}s and DiSNI's {@code RdmaCm}, with
 * futures instead of an event loop the application must run:
 *
 * <pre>{@code
 * // server
 * try (ConnectionManager cm = ConnectionManager.of(device);
 *      Listener l = cm.listen(18515)) {
 *     ConnectRequest req = l.accept(Duration.ofSeconds(30));
 *     try (Connection c = req.accept(new QpOptions().pd(pd).cq(cq), null, Duration.ofSeconds(10))) {
 *         c.qp().postRecv(recv);             // traffic as on any QP
 *         c.disconnected().join();           // until the client disconnects
 *     }
 * }
 * // client
 * try (ConnectionManager cm = ConnectionManager.of(device);
 *      Connection c = cm.connect(new ConnectOptions().destination(InetAddress.getByName("10.0.0.1")).port(18515)
 *              .qp(new QpOptions().pd(pd).cq(cq)), Duration.ofSeconds(10))) {
 *     c.qp().postSend(send);
 * }
 * }</pre>
 *
 * <p>One CM per device: {@link #of(Device)} returns a handle on the device's CM, creating it for the first user;
 * each handle is closed once, and the CM itself (its GSI QPs and every connection) goes when the last handle is
 * closed or the device goes away (the CM is the device's {@link io.rvt.api.DeviceClient}: a removal ends it, every
 * connection with {@link CmEventType#DEVICE_REMOVAL}, before the device's QPs are flushed). Under OSGi, rvt-cm's component registers a {@code ConnectionManager} service for
 * every {@code io.rvt.api.Device} service, with the device's {@code name} as property {@code device.name}.
 *
 * <p>Blocking methods ({@link #connect}, {@link Listener#accept(Duration)}, {@link ConnectRequest#accept},
 * {@link Connection#awaitEstablished}) wait on
 * the CM's own timers; with a deterministic simulated fabric that the calling thread drives, use the asynchronous
 * ones and run the fabric until the future is done. Every method is thread-safe.
 */
@ProviderType
public interface ConnectionManager extends AutoCloseable {
    /** rdma_cm's RDMA_PS_TCP port space: the service ID of CM port {@code p} is this {@code | p}. */
    long RDMA_PS_TCP_SERVICE_ID = 0x0000_0000_0106_0000L;
    /**
     * rdma_cm's RDMA_PS_UDP port space, where UD services are resolved by SIDR: the service ID of CM port {@code p}
     * is this {@code | p} ({@link #listenDatagram}, {@link #resolveDatagramAsync}).
     */
    long RDMA_PS_UDP_SERVICE_ID = 0x0000_0000_0111_0000L;
    /**
     * rdma_cm's Q_Key of the UD QPs of its UDP port space ({@code RDMA_UDP_QKEY}): librdmacm's UD applications
     * (udaddy, rdma_cm's UD QPs) use it and refuse a SIDR_REP naming another, so a UD QP served to them by
     * {@link #listenDatagram} needs it.
     */
    int RDMA_UDP_QKEY = 0x0123_4567;
    /** The GSI QP's well-known Q_Key (IBTA 9.6.1.1.4: 0x80010000). */
    int GSI_QKEY = 0x8001_0000;
    /** The length of rdma_cm's IP CM header at the start of a REQ's private data ({@code struct cma_hdr}). */
    int IP_CM_HEADER_LENGTH = 36;
    /** The most application private data of a REQ: 92 bytes less the IP CM header. */
    int MAX_REQ_PRIVATE_DATA = 92 - IP_CM_HEADER_LENGTH;
    /** The most private data of a REP ({@code IB_CM_REP_PRIVATE_DATA_SIZE}). */
    int MAX_REP_PRIVATE_DATA = 196;
    /** The most private data of a REJ ({@code IB_CM_REJ_PRIVATE_DATA_SIZE}). */
    int MAX_REJ_PRIVATE_DATA = 148;
    /** The most private data of a DREQ ({@code IB_CM_DREQ_PRIVATE_DATA_SIZE}). */
    int MAX_DREQ_PRIVATE_DATA = 220;
    /** The most private data of a SIDR_REQ after the IP CM header. */
    int MAX_SIDR_REQ_PRIVATE_DATA = 216 - IP_CM_HEADER_LENGTH;
    /** The most private data of a SIDR_REP ({@code IB_CM_SIDR_REP_PRIVATE_DATA_SIZE}). */
    int MAX_SIDR_REP_PRIVATE_DATA = 136;

    /**
     * The device's connection manager with the configuration the device asks for ({@link CmConfig#of(Device)}): on
     * the device's own clock and seed when that clock replays (driver-sim's deterministic fabric), else the defaults
     * (real time).
     *
     * @param device the device
     * @return a new handle on the device's CM; close it when done
     * @throws CmException ENODEV if the device is gone; EBUSY if the device's CM runs with another configuration
     * @throws io.rvt.api.VerbsException the verbs' error if a GSI QP cannot be created
     */
    static ConnectionManager of(Device device) {
        // no device, or a removed one: the registry's EINVAL or ENODEV
        return of(device, device == null || !device.isAlive() ? CmConfig.defaults() : CmConfig.of(device));
    }

    /**
     * The device's connection manager, created with {@code config} if it is the first.
     *
     * @param device the device
     * @param config the configuration (its timers, seed and timing)
     * @return a new handle on the device's CM; close it when done
     * @throws CmException ENODEV if the device is gone; EBUSY if the device's CM runs with another configuration
     * @throws io.rvt.api.VerbsException the verbs' error if a GSI QP cannot be created
     */
    static ConnectionManager of(Device device, CmConfig config) {
        return CmProviders.PROVIDER.acquire(device, config); // io.rvt.cm.impl's, through a ServiceLoader
    }

    /**
     * The RoCEv2 GID of an IP address, as Linux RoCE drivers fill their GID tables: {@code ::ffff:a.b.c.d} for IPv4,
     * the 16 address bytes for IPv6.
     *
     * @param address the address
     * @return its GID
     */
    static Gid gidOf(InetAddress address) {
        if (address instanceof Inet4Address) {
            return Gid.ipv4Mapped(ByteBuffer.wrap(address.getAddress()).getInt());
        }
        if (address instanceof Inet6Address) {
            return Gid.of(address.getAddress());
        }
        throw new IllegalArgumentException("not an IPv4 or IPv6 address: " + address);
    }

    /**
     * @param port a CM port, 0..65535
     * @return its RDMA_PS_TCP service ID, {@code 0x0000000001060000 | port}
     */
    static long serviceId(int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("CM port must be 0..65535, got " + port);
        }
        return RDMA_PS_TCP_SERVICE_ID | port;
    }

    /**
     * @param port a CM port, 0..65535
     * @return its RDMA_PS_UDP service ID, {@code 0x0000000001110000 | port}: the one SIDR resolves
     */
    static long datagramServiceId(int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("CM port must be 0..65535, got " + port);
        }
        return RDMA_PS_UDP_SERVICE_ID | port;
    }

    /** @return the device */
    Device device();

    /** @return the configuration the CM runs with */
    CmConfig config();

    /**
     * Listens on a CM port ({@code rdma_bind_addr} + {@code rdma_listen}); requests are taken with
     * {@link Listener#accept(Duration)} or {@link Listener#nextRequest()}.
     *
     * @param port the CM port, 0..65535
     * @return the listener
     * @throws CmException EADDRINUSE if somebody listens on that port of this device already; EINVAL for a bad port
     */
    Listener listen(int port);

    /**
     * Listens on a CM port and hands every request to {@code handler}.
     *
     * @param port the CM port, 0..65535
     * @param handler called for each request, on the CM's thread
     * @return the listener
     * @throws CmException EADDRINUSE if somebody listens on that port of this device already; EINVAL for a bad port
     */
    Listener listen(int port, ConnectRequestHandler handler);

    /**
     * Serves a UD QP under a CM port of rdma_cm's UDP port space: every SIDR_REQ for the port's
     * {@link #datagramServiceId} is answered with the QP's number and Q_Key. The port spaces are apart, as in
     * rdma_cm: a port may have a {@link #listen} listener and a datagram one.
     *
     * @param port the CM port, 0..65535
     * @param udQp a UD QP of this device, with its Q_Key set ({@link #RDMA_UDP_QKEY} for librdmacm peers)
     * @param privateData the SIDR_REP's private data, at most {@link #MAX_SIDR_REP_PRIVATE_DATA} bytes, or null
     * @return the listener (close it to stop answering)
     * @throws CmException EADDRINUSE if the port is taken; EINVAL if {@code udQp} is not a UD QP of this device
     */
    Listener listenDatagram(int port, QueuePair udQp, byte[] privateData);

    /**
     * Starts connecting ({@code rdma_connect}) and returns at once: creates the QP from the options (in INIT, so
     * receives may be posted before the peer can send), sends a REQ, and on the REP moves the QP to RTR and RTS and
     * sends the RTU; then {@link Connection#established()} completes. The REQ is resent every 4.096 us x
     * 2^{@code cmResponseTimeout} (longer after an MRA) up to {@code maxCmRetries} times. If the attempt fails,
     * {@link Connection#established()} fails with a {@link CmException}: ECONNREFUSED for a REJ (nobody listens:
     * {@link RejectReason#INVALID_SERVICE_ID}; the application refused: {@link RejectReason#CONSUMER_DEFINED} with
     * its private data; {@link RejectReason#STALE_CONN}), ETIMEDOUT after the retries, ENODEV if the CM or device
     * goes away; the QP is then in ERR, and {@link Connection#close()} destroys it.
     *
     * @param options where to and how
     * @return the connection, in {@link CmState#REQ_SENT}
     * @throws CmException EINVAL for bad options (no destination, port or PD, too much private data), with nothing
     *                     created; ENODEV if this handle is closed
     * @throws io.rvt.api.VerbsException the verbs' error if the QP cannot be created
     */
    Connection connectAsync(ConnectOptions options);

    /**
     * {@link #connectAsync} and waits until the connection is established (needs a CM whose timers run on their
     * own). On failure the connection is closed (its QP destroyed) before the exception is thrown.
     *
     * @param options where to and how
     * @param timeout how long to wait at most (the CM's own retries may end the attempt earlier)
     * @return the established connection
     * @throws CmException as {@link #connectAsync} and {@link Connection#awaitEstablished}
     */
    Connection connect(ConnectOptions options, Duration timeout);

    /**
     * Resolves a UD service by SIDR: sends a SIDR_REQ for the {@link #datagramServiceId} of the options' port to
     * the destination and waits for the SIDR_REP. Only the destination, port, private data, HCA port, source GID
     * index and CM timing of {@code options} are read.
     *
     * @param options where to
     * @return a future of the peer; fails with ECONNREFUSED if the peer has no such service (SIDR status != 0),
     *         ETIMEDOUT after the retries
     * @throws CmException EINVAL for bad options
     */
    CompletableFuture<DatagramPeer> resolveDatagramAsync(ConnectOptions options);

    /**
     * Adds a listener of every event of this CM (all connections and requests).
     *
     * @param listener the listener
     */
    void addEventListener(CmEventListener listener);

    /**
     * @param listener a listener added before
     * @return true if it was there
     */
    boolean removeEventListener(CmEventListener listener);

    /**
     * @return the communication IDs alive (listeners, requests, connections, IDs in timewait): 0 for an idle CM, the
     *         figure a leak test watches
     */
    int idCount();

    /**
     * What the CM sent and received, and every MAD it dropped, by reason (ib_cm's {@code cm_rx_msgs} and
     * {@code cm_rx_duplicates} sysfs groups play this part): {@code mads_sent}, {@code mads_received},
     * {@code mads_dropped} (the sum of the {@code dropped_*} counters), {@code dropped_malformed} (not a CM MAD of
     * class version 2), {@code dropped_not_from_gsi} (sent from a QP other than a GSI QP),
     * {@code dropped_unknown_attribute}, {@code dropped_no_such_id} (a MRA, REJ, RTU, DREQ, DREP or SIDR_REP whose
     * communication IDs or QPN match no ID here: a guess, or a late copy), {@code dropped_foreign_source} (the IDs
     * match, the sender's GID is not the peer's), {@code dropped_wrong_state} (duplicates), {@code
     * dropped_backlog_full} (a REQ for a listener with {@link CmConfig#listenBacklog()} requests unanswered),
     * {@code dropped_failed}; {@code sends_dropped} (MADs that could not be sent), {@code reqs_refused_ip_header}
     * (REQs and SIDR_REQs refused for a malformed IP CM header) and {@code reqs_expired} (requests the application
     * had not answered within {@link CmConfig#maxRequestHold()}).
     *
     * @return a snapshot of the counters by name, in that order
     */
    java.util.Map<String, Long> counters();

    /** @return true until this handle is closed (or the device went away) */
    boolean isOpen();

    /**
     * Releases this handle. The last handle of a device closes the CM: listeners stop, connections are disconnected
     * and their QPs destroyed, the GSI QPs go. Idempotent.
     */
    @Override
    void close();
}
