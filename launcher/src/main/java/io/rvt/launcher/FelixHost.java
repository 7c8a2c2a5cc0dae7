package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.spi.TimerService;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.util.tracker.ServiceTracker;

/**
 * Devices as an OSGi user gets them: an embedded Apache Felix boots Felix SCR, Config Admin and the rvt bundles
 * (rvt-core, rvt-transport and the driver: driver-sim or driver-jni) from {@code target/bundles}; two factory
 * configurations of the driver's PID ({@link HcaConfigurations}: two simulated HCAs on one fabric with the fabric
 * options, or two RoCEv2 HCAs over UDP) make two HCAs; rvt-core's Declarative Services component registers one
 * {@link Device} service per driver, which this host waits for and hands out. driver-jni's native library comes from
 * its bundle ({@code Bundle-NativeCode}), which Felix extracts into the framework's storage.
 *
 * <p>The system bundle exports the API packages from the launcher's class path ({@link #SYSTEM_PACKAGES}), so the
 * device services are the launcher's own {@link Device} type, and rvt-api is never installed as a bundle. The
 * framework's storage is a temporary directory, cleaned on first init and deleted on {@link #close()}.
 */
public final class FelixHost implements Host {
    /**
     * The packages the system bundle exports from the class path: rvt-api's and the Config Admin API's, at the
     * versions their own manifests give.
     */
    static final String SYSTEM_PACKAGES = BundleExports.of(Device.class) + ","
            + BundleExports.of(ConfigurationAdmin.class);
    /**
     * The bundles every host installs, in start order (symbolic names, found in the bundle directory by
     * {@link RunBundles#jarNames}): felix-host.bndrun's {@code -runbundles} as packaged with the launcher, less rvt-api
     * and the drivers ({@link RunBundles#hostBundles()}); the driver's bundle follows.
     */
    static final List<String> BUNDLES = RunBundles.hostBundles();
    /** The Gogo shell's bundles, installed for {@code rvt shell}. */
    static final List<String> SHELL_BUNDLES = List.of("org.apache.felix.gogo.runtime", "jline",
            "org.apache.felix.gogo.jline", "org.apache.felix.gogo.command");
    /** How long to wait for Config Admin and for the device services. */
    static final long DEADLINE_MILLIS = 20_000;
    /** How often the wait for the device services looks for a component that failed to activate. */
    private static final long FAILURE_POLL_MILLIS = 50;

    private final HcaConfigurations hcas;
    private final Path storage;
    /** Deletes the storage if the JVM ends without {@link #close()} (Ctrl-C in the middle of a command). */
    private final Thread cleanup;
    private final EmbeddedFelix felix;
    private final Framework framework;
    private final ServiceTracker<Device, Device> devices;
    private final List<Device> deviceList;
    /** Never have entries: polling them runs the progress hooks ({@link #progress()}); null in the shell. */
    private final ProgressPolls progressPolls;
    /** Device services as they arrive, by device name (sorted); guarded by itself. */
    private final Map<String, Device> arrived = new TreeMap<>();

    private FelixHost(HcaConfigurations hcas, Path bundleDir, boolean shell) throws Exception {
        this.hcas = hcas;
        this.storage = Files.createTempDirectory("rvt-felix-");
        this.cleanup = new Thread(() -> delete(storage), "rvt-felix-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        Map<String, String> config = new HashMap<>();
        config.put("felix.log.level", "1"); // errors only: the commands' output stays readable
        if (shell && System.console() == null) {
            // standard input or output is no terminal (`echo rvt:devices | rvt shell`): JLine's dumb terminal, which
            // reads the lines and ends at their end, without its warning that it could not make a system terminal
            System.setProperty("org.jline.terminal.dumb", "true");
        }
        if (!shell) {
            config.put("gosh.args", "--nointeractive");
            // SCR's own console log (level AUDIT: no errors): a driver component that fails to activate would print
            // its stack trace there; the wait for the devices reports it in one line instead (ScrFailures)
            config.put("ds.loglevel", "0");
        }
        felix = EmbeddedFelix.start(storage, SYSTEM_PACKAGES, config);
        framework = felix.framework();
        ServiceTracker<Device, Device> tracker = null;
        try {
            BundleContext ctx = felix.context();
            try {
                List<String> names = new ArrayList<>(RunBundles.jarNames(bundleDir, BUNDLES));
                names.add(hcas.bundle());
                if (shell) {
                    names.addAll(SHELL_BUNDLES);
                }
                felix.installAndStart(bundleDir, names);
            } catch (IllegalStateException e) {
                throw new IllegalStateException(e.getMessage() + " (build the launcher: mvn -pl launcher -am package)");
            }
            tracker = new ServiceTracker<>(ctx, Device.class, null) {
                @Override
                public Device addingService(ServiceReference<Device> ref) {
                    Device d = super.addingService(ref);
                    synchronized (arrived) {
                        arrived.put(String.valueOf(ref.getProperty("rvt.device.name")), d);
                        arrived.notifyAll();
                    }
                    return d;
                }
            };
            tracker.open();
            configure(ctx, shell);
            this.devices = tracker;
            this.deviceList = awaitDevices(hcas.properties(!shell).size());
            // driver-jni: every HCA's port engines; driver-sim: the first HCA's hook runs the whole fabric
            this.progressPolls = shell ? null : new ProgressPolls(deviceList, hcas.driver() == DriverKind.JNI);
        } catch (Exception | Error e) {
            if (tracker != null) {
                tracker.close();
            }
            stop();
            throw e;
        }
    }

    /**
     * Boots the framework, configures two HCAs and waits for their device services.
     *
     * @param hcas the driver and the configurations of its two HCAs
     * @param bundleDir where the bundle jars are
     * @param shell whether to also start the Gogo shell on the terminal
     * @return the running host
     * @throws IllegalStateException if the framework, a bundle or the devices do not come up (the message says which)
     */
    static FelixHost start(HcaConfigurations hcas, Path bundleDir, boolean shell) {
        try {
            return new FelixHost(hcas, bundleDir, shell);
        } catch (BundleException e) {
            throw new IllegalStateException("OSGi: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("OSGi: " + e, e);
        }
    }

    /** Two factory configurations of the driver's PID, one per HCA. */
    private void configure(BundleContext ctx, boolean shell) throws Exception {
        ServiceTracker<ConfigurationAdmin, ConfigurationAdmin> cm = new ServiceTracker<>(ctx,
                ConfigurationAdmin.class, null);
        cm.open();
        try {
            ConfigurationAdmin admin = cm.waitForService(DEADLINE_MILLIS);
            if (admin == null) {
                throw new IllegalStateException("OSGi: Config Admin did not start within " + DEADLINE_MILLIS
                        + " ms");
            }
            int made = 0;
            for (Map<String, Object> properties : hcas.properties(!shell)) {
                Configuration c = admin.createFactoryConfiguration(hcas.factoryPid(), "?");
                c.update(new Hashtable<>(properties));
                // one HCA at a time: they attach to the fabric in this order (a deterministic fabric's LIDs and
                // fault streams follow it), whatever threads Config Admin and SCR activate them on
                awaitDevices(++made);
            }
        } finally {
            cm.close();
        }
    }

    /**
     * Waits for {@code n} device services; a driver component that failed to activate ends the wait at once with its
     * own error, as the plain host reports it ({@code bind 127.0.0.1:4791 failed: EADDRINUSE ...}).
     */
    private List<Device> awaitDevices(int n) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE_MILLIS * 1_000_000;
        synchronized (arrived) {
            while (arrived.size() < n) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("OSGi: " + arrived.size() + " of " + n + " device services "
                            + "registered within " + DEADLINE_MILLIS + " ms (did " + hcas.bundle() + " refuse its "
                            + hcas.factoryPid() + " configuration? see the log above)");
                }
                String failure = ScrFailures.first(framework.getBundleContext());
                if (failure != null) {
                    throw new IllegalStateException(failure);
                }
                arrived.wait(Math.min(left / 1_000_000 + 1, FAILURE_POLL_MILLIS));
            }
            return List.copyOf(arrived.values());
        }
    }

    @Override
    public List<Device> devices() {
        return deviceList;
    }

    /** @return the framework's temporary storage directory (gone after {@link #close()}) */
    Path storage() {
        return storage;
    }

    @Override
    public DriverKind driver() {
        return hcas.driver();
    }

    @Override
    public Threading threading() {
        return hcas.threadingMode();
    }

    /**
     * An empty poll runs the driver's progress hook: a wait that polls no CQ of its own (a connection's) polls these,
     * so the command's thread drives the network there too (a deterministic fabric's virtual time included), and,
     * with driver-jni, the engine of every HCA, also the one whose CQs nobody polls ({@link ProgressPolls}).
     */
    @Override
    public void progress() {
        ProgressPolls.progress(progressPolls);
    }

    /** The counters of the simulated fabric, from driver-sim's fabric service (its trace_hash when deterministic). */
    @Override
    public Map<String, Long> fabricCounters() {
        Object counters = fabricService("java.util.function.Supplier", "(rvt.sim.fabric.counters=true)");
        if (counters instanceof Supplier<?> s && s.get() instanceof Map<?, ?> m) {
            Map<String, Long> out = new java.util.LinkedHashMap<>();
            m.forEach((k, v) -> out.put(String.valueOf(k), ((Number) v).longValue()));
            return out;
        }
        return Map.of();
    }

    /**
     * On a deterministic simulated fabric the CMs run on its virtual time (driver-sim's fabric service) and draw from
     * its seed, so that a connection's MADs are part of the same reproducible trace, as with {@code --no-osgi}.
     */
    @Override
    public io.rvt.cm.CmConfig cmConfig() {
        ServiceReference<?> ref = fabricReference(TimerService.class.getName(), "(rvt.sim.seed=*)");
        if (ref == null) {
            return Connector.realTime();
        }
        TimerService timers = (TimerService) framework.getBundleContext().getService(ref);
        return io.rvt.cm.CmConfig.builder().timerService(timers).seed((Long) ref.getProperty("rvt.sim.seed"))
                .cmResponseTimeout(Connector.CM_RESPONSE_TIMEOUT).build();
    }

    private Object fabricService(String type, String filter) {
        ServiceReference<?> ref = fabricReference(type, filter);
        return ref != null ? framework.getBundleContext().getService(ref) : null;
    }

    private ServiceReference<?> fabricReference(String type, String filter) {
        try {
            ServiceReference<?>[] refs = framework.getBundleContext().getServiceReferences(type, filter);
            return refs == null || refs.length == 0 ? null : refs[0];
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new IllegalStateException(filter, e);
        }
    }

    @Override
    public String description() {
        return hcas.bundle() + " in OSGi (Felix, Config Admin " + hcas.factoryPid() + ")" + hcas.network();
    }

    /**
     * Waits until the framework stops (the shell's {@code exit}, or {@code stop 0}).
     *
     * @throws InterruptedException if interrupted
     */
    void awaitStop() throws InterruptedException {
        framework.waitForStop(0);
    }

    @Override
    public void close() {
        devices.close();
        stop();
    }

    private void stop() {
        try {
            felix.stop(DEADLINE_MILLIS);
        } catch (BundleException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        } finally {
            delete(storage);
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException e) {
                // the JVM is shutting down already: the hook deletes nothing more than we just did
            }
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temporary directory is harmless
        }
    }
}
