package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.spi.DriverRegistry;
import io.rvt.driver.jni.JniDriver;
import io.rvt.driver.jni.JniDriverBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --driver jni --no-osgi}: two RoCEv2 HCAs (one in a {@code --server} or client process) ({@link JniDriver}s built from a {@link JniSetup}) registered in a
 * plain-Java device registry ({@link DriverRegistry#create()}), talking over real UDP sockets. The command's threads post and
 * poll; by default their empty polls run the port engines (driver-jni's progress hook), {@link #progress()} those
 * of both HCAs ({@link ProgressPolls}), and each port's thread is the backstop, as under OSGi; with
 * {@code --threading dedicated} only the ports' threads run them (they spin briefly, then wait in {@code poll}).
 */
final class PlainJniHost implements Host {
    private final JniSetup setup;
    private final List<JniDriver> drivers = new ArrayList<>();
    private final DriverRegistry registry = DriverRegistry.create();
    private final List<Device> devices = new ArrayList<>();
    /** With {@link Threading#PROGRESS} and two HCAs: the empty CQs whose polls run both HCAs' engines; else null. */
    private final ProgressPolls progressPolls;

    private PlainJniHost(JniSetup setup, long backstopQuietNanos) {
        this.setup = setup;
        try {
            for (int i = 0; i < setup.count(); i++) {
                JniDriverBuilder b = setup.builder(i);
                drivers.add((backstopQuietNanos > 0 ? b.backstopQuietNanos(backstopQuietNanos) : b).build());
            }
            for (JniDriver d : drivers) {
                devices.add(registry.register(d));
            }
            // one HCA (a --server or client process): its own polls run it, as before
            progressPolls = setup.threading() == Threading.PROGRESS && devices.size() > 1
                    ? new ProgressPolls(devices, true) : null;
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Binds the two HCAs' sockets and registers them.
     *
     * @param setup their addresses, ports and MTU
     * @return the running host
     * @throws IllegalStateException if driver-jni's native library is not available (the builder says why)
     * @throws io.rvt.driver.jni.UdpException if a socket cannot be bound (the message names the address and errno)
     */
    static PlainJniHost start(JniSetup setup) {
        return new PlainJniHost(setup, 0);
    }

    /**
     * For tests: {@link #start(JniSetup)} with the ports' backstop threads taking over only after no poller has run
     * their engines for {@code backstopQuietNanos} (driver-jni's default is 1 ms).
     *
     * @param setup their addresses, ports and MTU
     * @param backstopQuietNanos the backstops' quiet period
     * @return the running host
     */
    static PlainJniHost start(JniSetup setup, long backstopQuietNanos) {
        return new PlainJniHost(setup, backstopQuietNanos);
    }

    /**
     * With {@link Threading#PROGRESS} and two HCAs: runs both HCAs' port engines on the calling thread (an empty poll
     * of a CQ on each), so that a command waiting for a completion on one HCA also moves the other, whose CQs it may
     * never poll (the target of an RDMA WRITE stream); then spins.
     */
    @Override
    public void progress() {
        ProgressPolls.progress(progressPolls);
    }

    @Override
    public List<Device> devices() {
        return List.copyOf(devices);
    }

    @Override
    public DriverKind driver() {
        return DriverKind.JNI;
    }

    /** @return who runs the port engines: the command's polls (progress, the default) or the ports' threads */
    @Override
    public Threading threading() {
        return setup.threading();
    }

    @Override
    public String description() {
        return "driver-jni (" + setup.describe() + ")";
    }

    /**
     * @return per HCA, the datagrams its port dropped (bad ICRC, malformed) and the kernel refused to send, the socket
     *         buffers the kernel granted, its system calls ({@code sendmmsg}, {@code recvmmsg}, the empty ones, the
     *         datagrams they moved, the ACKs sent, the datagrams sent as UDP GSO segments, the packets received in
     *         coalesced datagrams) and the RC window (its size, the most in flight, the waits)
     */
    @Override
    public Map<String, Long> fabricCounters() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (JniDriver d : drivers) {
            m.put(d.name() + ".icrc_errors", d.statistics(1).icrcErrors());
            m.put(d.name() + ".malformed", d.statistics(1).malformed());
            m.put(d.name() + ".send_errors", d.statistics(1).sendErrors());
            // what the kernel granted the port's socket, and the RC window driver-jni derived from it
            m.put(d.name() + ".rcvbuf_bytes", (long) d.statistics(1).receiveBufferBytes());
            m.put(d.name() + ".sndbuf_bytes", (long) d.statistics(1).sendBufferBytes());
            m.put(d.name() + ".rc_window_packets", (long) d.rcWindowPackets(1));
            // the system-call economy of the port's sockets (rvt perf prints it under a bandwidth table)
            io.rvt.driver.jni.SocketCalls c = d.statistics(1).socketCalls();
            m.put(d.name() + ".sendmmsg_calls", c.sendCalls());
            m.put(d.name() + ".datagrams_sent", c.datagramsSent());
            m.put(d.name() + ".recvmmsg_calls", c.receiveCalls());
            m.put(d.name() + ".recvmmsg_empty", c.emptyReceives());
            m.put(d.name() + ".datagrams_received", c.datagramsReceived());
            m.put(d.name() + ".acks_sent", c.acksSent());
            m.put(d.name() + ".gso_segments", c.gsoSegments());
            m.put(d.name() + ".gro_segments", c.groSegments());
            m.put(d.name() + ".poller_waits", c.pollerWaits());
            m.put(d.name() + ".stand_in_cycles", c.standInCycles());
            io.rvt.transport.RcInFlight w = d.rcInFlight(1);
            if (w != null) {
                m.put(d.name() + ".rc_in_flight_peak", (long) w.peak());
                m.put(d.name() + ".rc_window_waits", w.waits());
            }
        }
        return m;
    }

    @Override
    public void close() {
        // unregistering stops each driver's engine threads and closes its sockets
        registry.close();
        for (JniDriver d : drivers) {
            d.close();
        }
    }
}
