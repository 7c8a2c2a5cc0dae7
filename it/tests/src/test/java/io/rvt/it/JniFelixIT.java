package io.rvt.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

/**
 * driver-jni in a real Apache Felix 7 with Felix SCR and Config Admin: the bundle resolves and loads
 * {@code librvtjni.so} through {@code Bundle-NativeCode}; two factory configurations (127.0.0.1, two UDP ports, each
 * the other's peer) become two RoCEv2 devices that pass checked RC traffic from the application bundle; the bundle
 * stopped, or updated and refreshed, in the middle of traffic flushes and removes the devices, stops its threads and
 * frees its ports, and comes back with the library loaded again by the new class loader. Each test launches its own
 * framework and stops it.
 */
class JniFelixIT extends FelixTest {
    private static final String JNI_FACTORY_PID = "io.rvt.driver.jni";
    private static final InetAddress LOCALHOST = InetAddress.getLoopbackAddress();

    /** The two devices' UDP ports, free when the test starts. */
    private int portA;
    private int portB;

    @BeforeEach
    void pickUdpPorts() throws Exception {
        // Two ports free at once, then released for the driver to bind (the kernel hands out ephemeral ports in turn,
        // so another process taking one of them in between is unlikely).
        try (DatagramSocket a = new DatagramSocket(new InetSocketAddress(LOCALHOST, 0));
                DatagramSocket b = new DatagramSocket(new InetSocketAddress(LOCALHOST, 0))) {
            portA = a.getLocalPort();
            portB = b.getLocalPort();
        }
    }

    @Override
    List<String> driverThreads() {
        return Threads.driverJni();
    }

    @Override
    void afterFrameworkStopped() {
        assertUdpPortFree(portA);
        assertUdpPortFree(portB);
    }

    // ------------------------------------------------------------------ helpers

    /** Installs and starts driver-jni: it must resolve (native code clause included) and be active. */
    private Bundle startDriverJni() throws Exception {
        Bundle jni = felix.install(Felix.DRIVER_JNI_JAR);
        assertThat(felix.resolve(jni)).as("driver-jni resolves").isTrue();
        jni.start();
        assertThat(jni.getState()).as("driver-jni's state").isEqualTo(Bundle.ACTIVE);
        return jni;
    }

    /**
     * Creates one RoCEv2 HCA: a factory configuration of driver-jni on 127.0.0.1. Both HCAs share the address, so
     * each maps that GID to the other's UDP port in its peer table.
     */
    private Configuration hca(String name, int udpPort, int peerUdpPort) throws Exception {
        Configuration c = felix.configurationAdmin().createFactoryConfiguration(JNI_FACTORY_PID, "?");
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("name", name);
        props.put("address", LOCALHOST.getHostAddress());
        props.put("udp.port", udpPort); // DS maps the config method udp_port() to the property udp.port
        props.put("peers", new String[] {LOCALHOST.getHostAddress() + "=" + peerUdpPort});
        c.update(props);
        return c;
    }

    /** Configures roce-a and roce-b, each the other's peer, and waits for their device services. */
    private List<Configuration> twoHcas() throws Exception {
        List<Configuration> out = List.of(hca("roce-a", portA, portB), hca("roce-b", portB, portA));
        felix.awaitDevices("roce-a", "roce-b");
        return out;
    }

    private void assertTrafficPasses(int messages) throws Exception {
        assertThat(app.rcTraffic("roce-a", "roce-b", messages)).startsWith("passed: " + messages + " RC messages")
                .contains("data checked");
    }

    /**
     * How the bundle's current revision loaded {@code librvtjni.so}. Read from driver-jni's loader class through the
     * bundle's class loader (the test shares no rvt type), and not kept: a reference would pin the revision.
     */
    private static String nativeLibraryLoadedVia(Bundle jni) throws Exception {
        Method how = jni.loadClass("io.rvt.driver.jni.NativeUdp").getDeclaredMethod("loadedVia");
        how.setAccessible(true); // package-private; the bundle's classes are in an unnamed module
        return (String) how.invoke(null);
    }

    /** {@code System.loadLibrary} succeeds in a bundle only through its Bundle-NativeCode (no java.library.path). */
    private static void assertLoadedThroughBundleNativeCode(Bundle jni) throws Exception {
        assertThat(nativeLibraryLoadedVia(jni)).as("how librvtjni.so was loaded").isEqualTo("System.loadLibrary");
    }

    private static void assertUdpPortFree(int port) {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(LOCALHOST, port))) {
            assertThat(s.getLocalPort()).isEqualTo(port);
        } catch (SocketException e) {
            throw new AssertionError("UDP port " + port + " is still bound: " + e.getMessage(), e);
        }
    }

    private static void assertUdpPortBound(int port) {
        assertThatThrownBy(() -> new DatagramSocket(new InetSocketAddress(LOCALHOST, port)).close())
                .as("binding UDP port " + port + ", which a device holds").isInstanceOf(SocketException.class);
    }

    private static void assertNoDriverJniThread(String when) {
        assertThat(Threads.driverJni()).as("driver-jni threads " + when).isEmpty();
    }

    // ------------------------------------------------------------------ tests

    @Test
    void driverJniStartsLoadsItsLibraryThroughBundleNativeCodeAndTwoConfigurationsPassRcTraffic() throws Exception {
        Bundle jni = startDriverJni();
        assertThat(felix.deviceDrivers()).as("devices before any configuration").isEmpty();
        assertNoDriverJniThread("before any configuration");

        twoHcas();
        assertLoadedThroughBundleNativeCode(jni);
        ServiceReference<?> device = felix.references(Felix.DEVICE, "(rvt.driver=roce-a)").get(0);
        assertThat(device.getBundle().getSymbolicName()).as("registered by rvt-core").isEqualTo("io.rvt.core");
        assertThat((String) device.getProperty("rvt.device.name")).isEqualTo("roce-a");
        assertThat(Threads.driverJni()).as("engine threads").containsExactly("rvt-jni-roce-a-port1",
                "rvt-jni-roce-b-port1");
        assertUdpPortBound(portA);
        assertUdpPortBound(portB);

        assertTrafficPasses(200);
        assertThat(app.rcTraffic("roce-b", "roce-a", 50)).as("the other way").startsWith("passed: 50 RC messages");
    }

    @Test
    void theMetatypeNamesTheUdpPortPropertyAsDeclarativeServicesReadsIt() throws Exception {
        Bundle jni = startDriverJni();
        ObjectClassDefinition ocd = felix.service(MetaTypeService.class, null).getMetaTypeInformation(jni)
                .getObjectClassDefinition(JNI_FACTORY_PID, null);
        List<String> ids = new ArrayList<>();
        for (var ad : ocd.getAttributeDefinitions(ObjectClassDefinition.ALL)) {
            ids.add(ad.getID());
        }
        assertThat(ids).containsExactlyInAnyOrder("name", "address", "udp.port", "mtu", "source.ports", "peers",
                "threading", "udp.gso", "udp.gro", "poller.wait.nanos", "poller.spin.adaptive");
    }

    @Test
    void stoppingDriverJniMidTrafficFlushesRemovesItsDevicesStopsItsThreadsFreesItsPortsAndARestartBringsThemBack()
            throws Exception {
        Bundle jni = startDriverJni();
        twoHcas();

        app.assertRemovalSeenMidTraffic(jni, "roce-a", "roce-b", Bundle::stop);
        assertThat(felix.deviceDrivers()).as("devices once driver-jni stopped").isEmpty();
        assertThat(felix.references(Felix.DRIVER, null)).as("driver services once driver-jni stopped").isEmpty();
        // Bundle.stop returns after SCR deactivated the components: threads joined, sockets closed.
        assertNoDriverJniThread("once driver-jni stopped");
        assertUdpPortFree(portA);
        assertUdpPortFree(portB);

        jni.start(); // the configurations persist in Config Admin
        felix.awaitDevices("roce-a", "roce-b");
        assertTrafficPasses(50);
    }

    @Test
    void updatingAndRefreshingDriverJniMidTrafficLoadsTheLibraryAgainAndDropsTheOldRevision() throws Exception {
        Bundle jni = startDriverJni();
        twoHcas();
        // From the test's own thread first: a poster that outlives the revision must not keep it.
        assertTrafficPasses(20);
        List<String> engineThreads = new ArrayList<>();

        WeakReference<ClassLoader> oldRevision = app.assertRemovalSeenMidTraffic(jni, "roce-a", "roce-b", b -> {
            engineThreads.addAll(Threads.driverJni());
            felix.updateAndRefresh(b);
        });

        felix.awaitDevices("roce-a", "roce-b");
        assertThat(jni.getState()).as("driver-jni's state after the refresh").isEqualTo(Bundle.ACTIVE);
        // A new class loader, and the library loaded for it through Bundle-NativeCode again (no "already loaded
        // in another classloader", which would have sent the loader to its fallback).
        assertLoadedThroughBundleNativeCode(jni);
        assertTrafficPasses(50);
        assertThat(Threads.driverJni()).as("driver-jni threads: the new revision's only").isEqualTo(engineThreads);

        Poll.untilCollected("the old revision's class loader", oldRevision);
    }

    @Test
    void deletingAConfigurationRemovesItsDeviceAndFreesItsPort() throws Exception {
        startDriverJni();
        List<Configuration> hcas = twoHcas();
        assertTrafficPasses(20);

        hcas.get(1).delete();
        felix.awaitDevices("roce-a");
        // rvt-core withdraws the device service only after the driver closed its socket.
        assertUdpPortFree(portB);
        assertUdpPortBound(portA);
        assertThat(Threads.driverJni()).as("engine threads").containsExactly("rvt-jni-roce-a-port1");

        hcas.get(0).delete();
        felix.awaitDevices();
        assertUdpPortFree(portA);
        assertNoDriverJniThread("once both configurations were deleted");
    }

    private Object deviceServiceId(String name) {
        return felix.references(Felix.DEVICE, "(rvt.device.name=" + name + ")").get(0).getProperty("service.id");
    }

    /** Waits until the device named {@code name} is a service other than {@code oldId}: it was re-created. */
    private void awaitRecreated(String name, Object oldId) throws Exception {
        Poll.until(name + " re-created", () -> felix.references(Felix.DEVICE, "(rvt.device.name=" + name + ")")
                .stream().anyMatch(r -> !r.getProperty("service.id").equals(oldId)));
    }

    @Test
    void theSameValuesOrNewPeersKeepTheDeviceAndAFixedPropertyRecreatesItOnItsPort() throws Exception {
        startDriverJni();
        List<Configuration> hcas = twoHcas();
        Configuration a = hcas.get(0);
        Configuration b = hcas.get(1);
        Object aId = deviceServiceId("roce-a");

        a.update(a.getProperties()); // what fileinstall does at start
        Dictionary<String, Object> more = a.getProperties();
        more.put("peers", new String[] {LOCALHOST.getHostAddress() + "=" + portB, "10.9.9.9=4800"});
        a.update(more); // a peer entry more: applied live
        // Config Admin delivers in order: once roce-b's change is in effect, roce-a's updates were handled too
        Object bId = deviceServiceId("roce-b");
        Dictionary<String, Object> bFewer = b.getProperties();
        bFewer.put("source.ports", 4);
        b.update(bFewer);
        awaitRecreated("roce-b", bId);
        assertThat(deviceServiceId("roce-a")).as("roce-a's device service after the same values and new peers")
                .isEqualTo(aId);
        assertTrafficPasses(50);

        more.put("source.ports", 4);
        a.update(more);
        awaitRecreated("roce-a", aId);
        felix.awaitDevices("roce-a", "roce-b");
        assertUdpPortBound(portA);
        assertTrafficPasses(50);
    }
}
