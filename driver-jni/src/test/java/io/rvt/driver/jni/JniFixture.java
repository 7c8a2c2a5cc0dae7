package io.rvt.driver.jni;

import io.rvt.api.Device;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.core.RvtDevice;
import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Faults;
import io.rvt.testkit.Feature;
import io.rvt.testkit.Variant;
import io.rvt.testkit.Verbs;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * driver-jni's conformance fixture: HCAs on one loopback address ({@code 127.0.0.1} or {@code ::1}), each on an
 * ephemeral UDP port, each with the others in its peer table; faults are injected by decorating the sockets.
 */
final class JniFixture implements DriverFixture {
    /** The conformance variant over 127.0.0.1, each HCA with threads of its own. */
    static final Variant IPV4 = new Variant("ipv4", seed -> new JniFixture(seed, "127.0.0.1"));
    /** The conformance variant over ::1. */
    static final Variant IPV6 = new Variant("ipv6", seed -> new JniFixture(seed, "::1"));
    /** Over 127.0.0.1 with one shared engine thread ({@code doWork}), the drivers starting none. */
    static final Variant SHARED_ENGINE = new Variant("ipv4, one shared engine",
            seed -> new JniFixture(seed, "127.0.0.1", true, Wire.NATIVE));
    /** Over ::1 with flows spread over three UDP source ports per HCA. */
    static final Variant SOURCE_PORTS = new Variant("ipv6, 3 source ports",
            seed -> new JniFixture(seed, "::1").sourcePorts(3));
    /** Over ::1 through the JDK's DatagramChannel ({@link Wire#JDK}). */
    static final Variant JDK_WIRE = new Variant("ipv6, JDK wire", seed -> new JniFixture(seed, "::1", false, Wire.JDK));
    /**
     * Over 127.0.0.1 with every datagram received carrying a numbered IPv4 Identification, as Linux's do
     * ({@link Ipv4IdNumbering}): each packet is accepted by solving its ICRC for the ID, and corrupted packets (one
     * bit flipped on the way) are still all caught.
     */
    static final Variant IPV4_IDS = new Variant("ipv4, numbered IP IDs",
            seed -> new JniFixture(seed, "127.0.0.1").numberIpv4Ids(true));

    private final long seed;
    private final String address;
    private final Wire wire;
    private final List<RvtDevice> devices = new ArrayList<>();
    private final List<JniDriver> drivers = new ArrayList<>();
    /** Every decorated socket; flow sockets are opened (and decorated) later, on a sending thread. */
    private final List<FaultyDatagrams> sockets = new CopyOnWriteArrayList<>();
    private volatile Faults faults = Faults.NONE;
    private volatile boolean partitioned;
    private final boolean shared;
    private int sourcePorts = JniDriverBuilder.DEFAULT_SOURCE_PORTS;
    private int socketBufferBytes = -1;
    private long backstopQuietNanos = -1;
    private long pollerWaitNanos = -1;
    private boolean adaptivePollerSpin;
    private boolean udpGso = true;
    private boolean udpGro = true;
    private boolean numberIpv4Ids;
    private boolean solveIpv4Id = true;
    private boolean retryBackoff = true;
    /** Wraps each socket outside the fault injection ({@link #decorate}). */
    private UnaryOperator<Datagrams> outer = UnaryOperator.identity();
    /** Per device, its sockets' {@link Ipv4IdNumbering} (with {@link #numberIpv4Ids}). */
    private final List<List<Ipv4IdNumbering>> numberings = new ArrayList<>();
    private boolean callerRunsEngines;
    private volatile boolean running;
    private Thread engine;

    JniFixture(long seed, String address) {
        this(seed, address, false, Wire.NATIVE);
    }

    /**
     * @param seed the fault injection seed
     * @param address the loopback address
     * @param shared true: the drivers start no threads; one thread of the fixture runs every driver's
     *               {@link JniDriver#doWork()}
     * @param wire the socket layer
     */
    JniFixture(long seed, String address, boolean shared, Wire wire) {
        this.seed = seed;
        this.address = address;
        this.wire = wire;
        this.shared = shared;
    }

    /**
     * @param n UDP source ports per HCA port ({@link JniDriverBuilder#sourcePorts(int)})
     * @return this
     */
    JniFixture sourcePorts(int n) {
        sourcePorts = n;
        return this;
    }

    /**
     * @param bytes SO_RCVBUF/SO_SNDBUF to ask for ({@link JniDriverBuilder#socketBufferBytes(int)})
     * @return this
     */
    JniFixture socketBufferBytes(int bytes) {
        socketBufferBytes = bytes;
        return this;
    }

    /**
     * @param nanos how long no poller may have run a port's engine before its backstop does
     *        ({@link JniDriverBuilder#backstopQuietNanos(long)})
     * @return this
     */
    JniFixture backstopQuietNanos(long nanos) {
        backstopQuietNanos = nanos;
        return this;
    }

    /**
     * @param nanos a poller's idle time on a port before it waits in poll ({@link JniDriverBuilder#pollerWaitNanos})
     * @return this
     */
    JniFixture pollerWaitNanos(long nanos) {
        pollerWaitNanos = nanos;
        return this;
    }

    /**
     * @param v whether the pollers' spin follows the idle gaps ({@link JniDriverBuilder#adaptivePollerSpin})
     * @return this
     */
    JniFixture adaptivePollerSpin(boolean v) {
        adaptivePollerSpin = v;
        return this;
    }

    /**
     * @param on RC retries back off ({@link JniDriverBuilder#retryBackoff(boolean)}; default on)
     * @return this
     */
    JniFixture retryBackoff(boolean on) {
        retryBackoff = on;
        return this;
    }

    /**
     * @param decorator wraps every socket of the devices opened from now on, outside the fault injection
     * @return this
     */
    JniFixture decorate(UnaryOperator<Datagrams> decorator) {
        outer = decorator;
        return this;
    }

    /**
     * @param on UDP GSO on IPv6 ports ({@link JniDriverBuilder#udpGso(boolean)}; default on)
     * @return this
     */
    JniFixture udpGso(boolean on) {
        udpGso = on;
        return this;
    }

    /**
     * @param on UDP GRO on the ports' sockets ({@link JniDriverBuilder#udpGro(boolean)}; default on)
     * @return this
     */
    JniFixture udpGro(boolean on) {
        udpGro = on;
        return this;
    }

    /**
     * @param on every IPv4 datagram an HCA receives carries a numbered, mostly non-zero IP Identification as Linux's
     *        do, its ICRC computed over it ({@link Ipv4IdNumbering}; faults are injected before it, on the way)
     * @return this
     */
    JniFixture numberIpv4Ids(boolean on) {
        numberIpv4Ids = on;
        return this;
    }

    /**
     * @param on {@link JniDriverBuilder#solveIpv4Id(boolean)} (default on)
     * @return this
     */
    JniFixture solveIpv4Id(boolean on) {
        solveIpv4Id = on;
        return this;
    }

    /**
     * @param device a device's index in {@link #drivers()}
     * @return the datagrams it received with a non-zero IPv4 Identification ({@link #numberIpv4Ids})
     */
    long ipv4IdsNumbered(int device) {
        long n = 0;
        for (Ipv4IdNumbering s : numberings.get(device)) {
            n += s.numbered();
        }
        return n;
    }

    List<JniDriver> drivers() {
        return drivers;
    }

    @Override
    public Device[] open(int count) {
        Device[] out = new Device[count];
        int first = drivers.size();
        for (int i = 0; i < count; i++) {
            long s = seed + drivers.size();
            String name = "roce" + drivers.size();
            JniDriverBuilder builder = JniDriver.builder();
            if (socketBufferBytes >= 0) {
                builder.socketBufferBytes(socketBufferBytes);
            }
            if (backstopQuietNanos > 0) {
                builder.backstopQuietNanos(backstopQuietNanos);
            }
            if (pollerWaitNanos >= 0) {
                builder.pollerWaitNanos(pollerWaitNanos);
                builder.adaptivePollerSpin(adaptivePollerSpin);
            }
            List<Ipv4IdNumbering> numbered = new CopyOnWriteArrayList<>();
            numberings.add(numbered);
            JniDriver d = builder.name(name).address(address).udpPort(0).wire(wire)
                    .ownThreads(!shared).sourcePorts(sourcePorts).udpGso(udpGso).udpGro(udpGro)
                    .solveIpv4Id(solveIpv4Id)
                    .retryBackoff(retryBackoff)
                    .decorate(io -> {
                        FaultyDatagrams f = new FaultyDatagrams(name, io, s, 4096 + 128, sockets);
                        f.faults(faults);
                        f.partition(partitioned);
                        if (!numberIpv4Ids) {
                            return outer.apply(f);
                        }
                        Ipv4IdNumbering n = new Ipv4IdNumbering(f, (int) s * 7919);
                        numbered.add(n);
                        return outer.apply(n);
                    }).build();
            drivers.add(d);
        }
        for (int i = first; i < drivers.size(); i++) {
            for (int j = first; j < drivers.size(); j++) {
                if (i != j) {
                    drivers.get(i).addPeer(drivers.get(j).gid(1), drivers.get(j).localPort(1));
                }
            }
        }
        for (int i = 0; i < count; i++) {
            RvtDevice dev = RvtDevice.register(drivers.get(first + i));
            devices.add(dev);
            out[i] = dev;
        }
        if (shared && engine == null && !callerRunsEngines) {
            running = true;
            engine = new Thread(this::serve, "rvt-jni-fixture-engine");
            engine.setDaemon(true);
            engine.start();
        }
        return out;
    }

    /**
     * Opens devices without threads of their own and without the fixture's engine thread: the caller runs every
     * driver's {@link JniDriver#doWork()} (only for a fixture made with {@code shared}).
     *
     * @param count how many devices
     * @return the devices
     */
    Device[] openWithoutEngine(int count) {
        if (!shared) {
            throw new IllegalStateException("only a shared fixture leaves the engines to the caller");
        }
        callerRunsEngines = true;
        return open(count);
    }

    /** The shared engine: every driver's duty cycle in turn, yielding when all are idle. */
    private void serve() {
        List<JniDriver> all = List.copyOf(drivers);
        while (running) {
            int work = 0;
            for (JniDriver d : all) {
                work += d.doWork();
            }
            if (work == 0) {
                Thread.yield();
            }
        }
    }

    @Override
    public boolean progress() {
        if (!callerRunsEngines) {
            return false; // the engines have threads of their own
        }
        int work = 0;
        for (JniDriver d : drivers) { // the caller's thread is the engine: e.g. while a CM connects a pair
            work += d.doWork();
        }
        return work > 0;
    }

    @Override
    public boolean supports(Feature feature) {
        return feature != Feature.DETERMINISTIC;
    }

    @Override
    public void faults(Faults f) {
        faults = f;
        for (FaultyDatagrams s : sockets) {
            s.faults(f);
        }
    }

    /** Each socket's fault counts ({@link FaultyDatagrams#counts()}), named by its device. */
    @Override
    public String faultsInjected() {
        StringBuilder sb = new StringBuilder();
        for (FaultyDatagrams s : sockets) {
            sb.append(sb.length() == 0 ? "" : "; ").append(s.owner).append(" socket ").append(s.localPort())
                    .append(": ").append(s.counts());
        }
        return sb.toString();
    }

    @Override
    public void partition(boolean cut) {
        partitioned = cut;
        for (FaultyDatagrams s : sockets) {
            s.partition(cut);
        }
    }

    @Override
    public long seed() {
        return seed;
    }

    @Override
    public void close() {
        running = false;
        if (engine != null) {
            try {
                engine.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (RvtDevice d : devices) {
            d.unregister();
        }
        for (JniDriver d : drivers) {
            d.close();
        }
    }

    /**
     * One RC SEND of {@code bytes} from {@code pair[0]} to {@code pair[1]} (a connected pair), both completions
     * awaited and the data checked: the device still serves.
     */
    static void sendChecked(Verbs verbs, Endpoint[] pair, int bytes, long seed) {
        Verbs.fill(pair[0].buffer, 0, bytes, seed);
        pair[1].qp.postRecv(new RecvWorkRequest(1).wrId(7).sge(pair[1].mr, 0, pair[1].buffer.capacity()));
        pair[0].qp.postSend(new SendWorkRequest(1).wrId(8).opcode(WrOpcode.SEND).sge(pair[0].mr, 0, bytes));
        Verbs.assertSuccess(verbs.await(pair[0].sendCq, 1).get(0), 8);
        Verbs.assertSuccess(verbs.await(pair[1].recvCq, 1).get(0), 7);
        Verbs.assertPattern(pair[1].buffer, 0, bytes, seed);
    }
}
