package io.rvt.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

/**
 * rvt in a real Apache Felix 7 with Felix SCR and Config Admin: bundles, device services made from simulated-HCA
 * configurations, RC traffic from an application bundle, driver departure in the middle of traffic, leaks over many
 * cycles, a third party's driver, and what must be refused. Each test launches its own framework and stops it.
 */
class RvtFelixIT extends FelixTest {
    private static final String SIM_FACTORY_PID = "io.rvt.driver.sim";
    private static final String FABRIC = "it";
    private static final String CM = "io.rvt.cm.ConnectionManager";

    @Override
    List<String> driverThreads() {
        return Threads.driverSim();
    }

    // ------------------------------------------------------------------ helpers

    /** Creates a simulated HCA: a factory configuration of driver-sim, bound to whichever bundle uses it. */
    private Configuration hca(String name) throws Exception {
        Configuration c = felix.configurationAdmin().createFactoryConfiguration(SIM_FACTORY_PID, "?");
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("name", name);
        props.put("fabric", FABRIC);
        c.update(props);
        return c;
    }

    // ------------------------------------------------------------------ bundles and devices

    @Test
    void everyRvtBundleResolvesAndIsActive() {
        for (String bsn : Felix.RVT_BUNDLES) {
            assertThat(felix.bundle(bsn).getState()).as(bsn).isEqualTo(Bundle.ACTIVE);
        }
        for (Bundle b : felix.bundles()) {
            assertThat(b.getState()).as(b.getSymbolicName()).isEqualTo(Bundle.ACTIVE);
        }
    }

    @Test
    void aDeviceServiceFollowsItsSimulatedHcaConfiguration() throws Exception {
        assertThat(felix.deviceDrivers()).isEmpty();

        Configuration config = hca("hca-x");
        felix.awaitDevices("hca-x");
        ServiceReference<?> device = felix.references(Felix.DEVICE, "(rvt.driver=hca-x)").get(0);
        assertThat(device.getBundle().getSymbolicName()).as("registered by rvt-core").isEqualTo("io.rvt.core");
        assertThat((String) device.getProperty("rvt.device.name")).as("the name its configuration gives")
                .isEqualTo("hca-x");
        assertThat((String) device.getProperty("rvt.node.guid")).as("as ibverbs prints it")
                .matches("([0-9a-f]{4}:){3}[0-9a-f]{4}");
        assertThat(device.getProperty("rvt.ports")).isEqualTo(1);

        config.delete();
        felix.awaitDevices();
        Poll.until("the HCA's threads stopped", () -> Threads.driverSim().isEmpty(), Threads::driverSim);
    }

    @Test
    void theMetatypeOfSimulatedHcasIsReadable() throws Exception {
        MetaTypeService metatype = felix.service(MetaTypeService.class, null);
        MetaTypeInformation info = metatype.getMetaTypeInformation(felix.bundle(Felix.DRIVER_SIM));
        assertThat(info.getFactoryPids()).contains(SIM_FACTORY_PID);
        ObjectClassDefinition ocd = info.getObjectClassDefinition(SIM_FACTORY_PID, null);
        List<String> ids = new ArrayList<>();
        for (var ad : ocd.getAttributeDefinitions(ObjectClassDefinition.ALL)) {
            ids.add(ad.getID());
        }
        assertThat(ids).contains("name", "fabric", "ports", "mtu", "max_qp", "threading", "idle", "deterministic",
                "seed", "loss", "duplication", "reorder", "corruption", "latency_ns", "bandwidth_gbps");
    }

    @Test
    void theAppBundleRunsRcTrafficBetweenTwoSimulatedHcas() throws Exception {
        hca("hca-a");
        hca("hca-b");
        felix.awaitDevices("hca-a", "hca-b");

        assertThat(app.rcTraffic("hca-a", "hca-b", 200)).startsWith("passed: 200 RC messages").contains("data checked");
    }

    // ------------------------------------------------------------------ deterministic under Felix

    /** A deterministic simulated HCA whose fabric (5 % loss) the application's polls drive. */
    private Configuration deterministicHca(String name, long seed, String... present) throws Exception {
        Configuration c = felix.configurationAdmin().createFactoryConfiguration(SIM_FACTORY_PID, "?");
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("name", name);
        props.put("fabric", "it-det");
        props.put("deterministic", true);
        props.put("seed", seed);
        props.put("loss", 0.05);
        c.update(props);
        felix.awaitDevices(present); // one at a time: they attach to the fabric in this order
        return c;
    }

    /**
     * @return the trace hash of the deterministic fabric after checked RC traffic between two fresh HCAs, connected
     *         through rvt-cm's CM services (on the fabric's clock and seed: the devices' own)
     */
    @SuppressWarnings("unchecked")
    private long deterministicTraffic(String a, String b, long seed) throws Exception {
        Configuration ca = deterministicHca(a, seed, a);
        Configuration cb = deterministicHca(b, seed, a, b);
        for (String device : List.of(a, b)) {
            // rvt-cm's service for the device runs on the fabric's clock and seed (CmConfig's text names its timer)
            String filter = "(rvt.device.name=" + device + ")";
            Poll.until("rvt-cm's service of " + device, () -> !felix.references(CM, filter).isEmpty());
            Object cm = felix.context().getService(felix.references(CM, filter).get(0));
            assertThat(String.valueOf(cm.getClass().getClassLoader().loadClass(CM).getMethod("config").invoke(cm))).as(device)
                    .contains("fabric 'it-det' virtual time (seed 0x" + Long.toHexString(seed) + ")");
        }
        assertThat(app.rcTraffic(a, b, 100)).startsWith("passed: 100 RC messages");
        java.util.function.Supplier<Map<String, Long>> counters = felix.service(java.util.function.Supplier.class,
                "(&(rvt.sim.fabric=it-det)(rvt.sim.fabric.counters=true))");
        Map<String, Long> m = counters.get();
        assertThat(m.get("drop.loss")).as("frames were lost and resent").isPositive();
        long hash = m.get("trace_hash");
        ca.delete();
        cb.delete();
        felix.awaitDevices();
        return hash;
    }

    @Test
    void aDeterministicFabricReplaysTheApplicationsConnectionsAndTrafficWhenItsPollsDriveIt() throws Exception {
        // the default threading (progress): no loop thread, the polls run virtual time; the app's CMs (rvt-cm's
        // component and ConnectionManager.of) run on the devices' clock, the fabric's
        long first = deterministicTraffic("det-a", "det-b", 11);
        long second = deterministicTraffic("det-c", "det-d", 11);
        assertThat(second).as("the same seed and the same calls give the same trace").isEqualTo(first);
        long other = deterministicTraffic("det-e", "det-f", 12);
        assertThat(other).as("another seed gives another trace").isNotEqualTo(first);
    }

    // ------------------------------------------------------------------ the driver goes away mid-traffic

    /** Starts traffic between two HCAs, lets {@code disrupt} take driver-sim away, checks what the app saw. */
    private WeakReference<ClassLoader> assertTheAppSeesRemovalMidTraffic(App.Disruption disrupt) throws Exception {
        hca("hca-a");
        hca("hca-b");
        felix.awaitDevices("hca-a", "hca-b");
        return app.assertRemovalSeenMidTraffic(felix.bundle(Felix.DRIVER_SIM), "hca-a", "hca-b", disrupt);
    }

    private void assertDevicesWorkAgain() throws Exception {
        felix.awaitDevices("hca-a", "hca-b");
        assertThat(app.rcTraffic("hca-a", "hca-b", 50)).startsWith("passed");
    }

    @Test
    void stoppingDriverSimMidTrafficFlushesAndRemovesItsDevicesAndARestartBringsThemBack() throws Exception {
        assertTheAppSeesRemovalMidTraffic(Bundle::stop);
        assertThat(felix.deviceDrivers()).as("devices once driver-sim stopped").isEmpty();
        assertThat(Threads.driverSim()).as("driver-sim threads once it stopped").isEmpty();

        felix.bundle(Felix.DRIVER_SIM).start(); // the configurations persist in Config Admin
        assertDevicesWorkAgain();
    }

    @Test
    void updatingAndRefreshingDriverSimMidTrafficBehavesTheSameAndDropsTheOldRevision() throws Exception {
        List<String> driverThreads = new ArrayList<>();
        WeakReference<ClassLoader> oldRevision = assertTheAppSeesRemovalMidTraffic(sim -> {
            driverThreads.addAll(Threads.driverSim());
            felix.updateAndRefresh(sim);
        });
        assertDevicesWorkAgain();
        assertThat(Threads.driverSim()).as("driver-sim threads: the new revision's only").isEqualTo(driverThreads);

        Poll.untilCollected("the old revision's class loader", oldRevision);
    }

    /**
     * The test's own thread posts and polls (the app's rc-traffic function runs on its caller's thread, which with the
     * progress hook also runs the HCAs' send engines) and lives on: once driver-sim is updated and refreshed, the old
     * revision's class loader is collected all the same (a per-HCA {@code ThreadLocal<SimScratch>} kept it through
     * every thread that ever sent).
     */
    @Test
    void updatingDriverSimDropsTheOldRevisionWhileAThreadThatPostedLivesOn() throws Exception {
        hca("hca-a");
        hca("hca-b");
        felix.awaitDevices("hca-a", "hca-b");
        Bundle sim = felix.bundle(Felix.DRIVER_SIM);
        WeakReference<ClassLoader> oldRevision = new WeakReference<>(
                sim.adapt(org.osgi.framework.wiring.BundleWiring.class).getClassLoader());
        assertThat(app.rcTraffic("hca-a", "hca-b", 50)).startsWith("passed"); // on this thread
        felix.updateAndRefresh(sim);
        assertDevicesWorkAgain(); // this thread sends through the new revision now
        Poll.untilCollected("the old revision's class loader, this posting thread alive", oldRevision);
    }

    /**
     * driver-sim stopped 100 times in the middle of RC traffic (and started again): each time, every wr_id the
     * application posted completes exactly once (SUCCESS or WR_FLUSH_ERR), none completes that was not accepted.
     */
    @Test
    void stoppingDriverSimAHundredTimesMidTrafficCompletesEveryWorkRequestExactlyOnce() throws Exception {
        hca("hca-a");
        hca("hca-b");
        Bundle sim = felix.bundle(Felix.DRIVER_SIM);
        List<String> failures = new ArrayList<>();
        long start = System.nanoTime();
        for (int cycle = 0; cycle < 100 && failures.isEmpty(); cycle++) {
            felix.awaitDevices("hca-a", "hca-b");
            String f = app.stopStartMidTraffic(sim, "hca-a", "hca-b", 1 + (cycle * 7) % 40);
            if (f != null) {
                failures.add("cycle " + cycle + ": " + f);
            }
        }
        assertThat(failures).isEmpty();
        assertThat(app.flushedTotal).as("work requests flushed by the removals").isPositive();
        System.out.printf("100 driver-sim stops mid-traffic in %d ms, %d WRs flushed%n",
                (System.nanoTime() - start) / 1_000_000, app.flushedTotal);
    }

    /**
     * The third-party loopback driver (its {@code do_send} runs {@code rvt_ruc_loopback} on the application's thread)
     * stopped 100 times in the middle of RC traffic from its device to itself: every wr_id completes exactly once.
     */
    @Test
    void stoppingALoopbackDriverBundleAHundredTimesMidTrafficCompletesEveryWorkRequestExactlyOnce()
            throws Exception {
        Bundle loopback = felix.install("rvt-it-loopback-driver");
        loopback.start();
        List<String> failures = new ArrayList<>();
        long start = System.nanoTime();
        for (int cycle = 0; cycle < 100 && failures.isEmpty(); cycle++) {
            felix.awaitDevices("loopback");
            // The removal moves the QPs to ERR one by one: a SEND that meets its responder already in ERR completes
            // with RETRY_EXC_ERR, as in rdmavt's loopback (the responder drops it).
            String f = app.stopStartMidTraffic(loopback, "loopback", "loopback", 1 + (cycle * 7) % 40,
                    "RETRY_EXC_ERR");
            if (f != null) {
                failures.add("cycle " + cycle + ": " + f);
            }
        }
        assertThat(failures).isEmpty();
        assertThat(app.flushedTotal).as("work requests flushed by the removals").isPositive();
        System.out.printf("100 loopback-driver stops mid-traffic in %d ms, %d WRs flushed%n",
                (System.nanoTime() - start) / 1_000_000, app.flushedTotal);
        loopback.uninstall();
    }

    @Test
    void twentyStopStartCyclesGrowNeitherThreadsNorRetainedHeap() throws Exception {
        hca("hca-a");
        hca("hca-b");
        Bundle sim = felix.bundle(Felix.DRIVER_SIM);
        List<WeakReference<Object>> stoppedDrivers = new ArrayList<>();
        Map<String, Integer> threadsAfterFirstCycle = null;
        long heapAfterFirstCycle = 0;
        for (int cycle = 1; cycle <= 20; cycle++) {
            felix.awaitDevices("hca-a", "hca-b");
            assertThat(app.rcTraffic("hca-a", "hca-b", 10)).as("cycle " + cycle).startsWith("passed");
            for (ServiceReference<?> ref : felix.references(Felix.DRIVER, "(rvt.sim.fabric=" + FABRIC + ")")) {
                stoppedDrivers.add(new WeakReference<>(felix.context().getService(ref)));
                felix.context().ungetService(ref);
            }
            if (cycle == 1) {
                threadsAfterFirstCycle = Threads.profile();
                heapAfterFirstCycle = usedHeapAfterGc();
            }
            sim.stop();
            assertThat(felix.deviceDrivers()).as("devices after stop " + cycle).isEmpty();
            Poll.until("no driver-sim thread after stop " + cycle, () -> Threads.driverSim().isEmpty(),
                    Threads::driverSim);
            sim.start();
        }
        felix.awaitDevices("hca-a", "hca-b");
        assertThat(app.rcTraffic("hca-a", "hca-b", 10)).startsWith("passed");

        assertThat(Threads.profile()).as("threads by kind, after 20 cycles vs after the first")
                .isEqualTo(threadsAfterFirstCycle);
        Poll.until("the drivers of every stopped cycle were collected", () -> {
            System.gc();
            return stoppedDrivers.stream().allMatch(r -> r.get() == null);
        });
        // A leak of one cycle's HCAs (fabric, frame pools, QP tables) would show 19 times over.
        assertThat(usedHeapAfterGc() - heapAfterFirstCycle).as("used heap growth after GC, bytes")
                .isLessThan(16L << 20);
    }

    private static long usedHeapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    // ------------------------------------------------------------------ third parties

    @Test
    void aThirdPartyLoopbackDriverInstalledAtRunTimeGetsADeviceAndPassesTraffic() throws Exception {
        Bundle loopback = felix.install("rvt-it-loopback-driver");
        loopback.start();
        felix.awaitDevices("loopback");
        ServiceReference<?> device = felix.references(Felix.DEVICE, "(rvt.driver=loopback)").get(0);
        assertThat(device.getProperty("rvt.ports")).isEqualTo(1);

        assertThat(app.rcTraffic("loopback", "loopback", 200)).startsWith("passed: 200 RC messages");

        loopback.uninstall();
        felix.awaitDevices();
        Poll.until("the loopback engine thread ended", () -> Threads.named(n -> n.startsWith("rvt-loopback")).isEmpty());
    }

    @Test
    void aDriverThatBreaksTheSpiIsRefusedWithOneLogLineAndGetsNoDevice() throws Exception {
        List<String> errors = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            private final SimpleFormatter formatter = new SimpleFormatter();

            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.SEVERE.intValue()) {
                    errors.add(formatter.formatMessage(r)); // text only: keep no object of a bundle alive
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger root = Logger.getLogger("");
        root.addHandler(capture);
        try {
            hca("hca-a");
            felix.awaitDevices("hca-a");
            Bundle broken = felix.install("rvt-it-broken-driver");
            broken.start();
            Poll.until("a log line refusing the driver", () -> errors.stream().anyMatch(l -> l.contains("broken")),
                    () -> errors);

            assertThat(errors).as("error log lines").hasSize(1);
            assertThat(errors.get(0)).startsWith("rvt: refused driver service")
                    .contains("io.rvt.it.broken.BrokenDriver").contains("driver 'broken'").contains("needs callback");
            assertThat(broken.getState()).as("the bundle itself is fine").isEqualTo(Bundle.ACTIVE);
            assertThat(felix.deviceDrivers()).as("devices").containsExactly("hca-a");
        } finally {
            root.removeHandler(capture);
        }
    }

    @Test
    void aConsumerBuiltAgainstAnIncompatibleApiVersionDoesNotWire() throws Exception {
        Bundle old = felix.install("rvt-it-old-consumer");

        assertThat(felix.resolve(old)).isFalse();
        assertThatThrownBy(old::start).isInstanceOf(BundleException.class)
                .hasMessageContaining("osgi.wiring.package=io.rvt.api")
                .hasMessageContaining("version>=3.0.0");
        assertThat(old.getState()).isEqualTo(Bundle.INSTALLED);
    }
}
