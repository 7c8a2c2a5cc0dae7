package io.rvt.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;

/**
 * How rvt behaves as an OSGi citizen, in a real Felix with SCR, Config Admin and the Gogo runtime: device names that
 * stay put (sim0, sim1, or the configuration's name), configurations applied again or changed live without a new
 * device, and shell commands that print in a batch session (Karaf's {@code bin/client rvt:devices} ignores a
 * command's return value) as well as in a console.
 */
class OsgiMannersFelixIT extends FelixTest {
    private static final String SIM_FACTORY_PID = "io.rvt.driver.sim";
    private static final String GUID = "[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}";

    @Override
    List<String> driverThreads() {
        return Threads.driverSim();
    }

    // ------------------------------------------------------------------ helpers

    private static Dictionary<String, Object> props(Object... kv) {
        Dictionary<String, Object> p = new Hashtable<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        return p;
    }

    private Configuration hca(Dictionary<String, Object> props) throws Exception {
        Configuration c = felix.configurationAdmin().createFactoryConfiguration(SIM_FACTORY_PID, "?");
        c.update(props);
        return c;
    }

    /** @return the names of the device services registered now */
    private TreeSet<String> deviceNames() {
        TreeSet<String> out = new TreeSet<>();
        for (ServiceReference<?> r : felix.references(Felix.DEVICE, null)) {
            out.add((String) r.getProperty("rvt.device.name"));
        }
        return out;
    }

    private void awaitDeviceNames(String... names) throws Exception {
        TreeSet<String> expected = new TreeSet<>(List.of(names));
        Poll.until("devices named " + expected, () -> deviceNames().equals(expected), () -> "(now " + deviceNames()
                + ")");
    }

    private ServiceReference<?> device(String name) {
        return felix.references(Felix.DEVICE, "(rvt.device.name=" + name + ")").get(0);
    }

    /** @return the loss probability of the first port's link of the HCA behind the device, read from the driver */
    private double linkLoss(String deviceName) throws Exception {
        ServiceReference<?> ref = felix.references(Felix.DRIVER, "(rvt.driver.name=" + deviceName + ")").get(0);
        Object driver = felix.context().getService(ref);
        try {
            Object port = driver.getClass().getMethod("fabricPort", int.class).invoke(driver, 1);
            Object link = port.getClass().getMethod("link").invoke(port);
            Object faults = link.getClass().getMethod("faults").invoke(link);
            return (double) faults.getClass().getMethod("loss").invoke(faults);
        } finally {
            felix.context().ungetService(ref);
        }
    }

    /** Runs one command line in a Gogo session, as a batch client does, and returns what the session printed. */
    private String runInSession(Bundle gogo, String command) throws Exception {
        ServiceReference<?> ref = felix.references("org.apache.felix.service.command.CommandProcessor", null).get(0);
        Object processor = felix.context().getService(ref);
        Class<?> processorType = gogo.loadClass("org.apache.felix.service.command.CommandProcessor");
        Class<?> sessionType = gogo.loadClass("org.apache.felix.service.command.CommandSession");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Object session = processorType.getMethod("createSession", InputStream.class, OutputStream.class,
                OutputStream.class).invoke(processor, new ByteArrayInputStream(new byte[0]), out, err);
        try {
            Object result = sessionType.getMethod("execute", CharSequence.class).invoke(session, command);
            assertThat(result).as("%s returns nothing a console would print a second time", command).isNull();
        } finally {
            sessionType.getMethod("close").invoke(session);
            felix.context().ungetService(ref);
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).as("%s: stderr", command).isEmpty();
        return out.toString(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ names

    @Test
    void unnamedHcasAreSim0AndSim1AndAreSoAgainAfterDriverSimRestarts() throws Exception {
        hca(props("fabric", "it"));
        hca(props("fabric", "it"));
        awaitDeviceNames("sim0", "sim1");
        assertThat((String) device("sim0").getProperty("rvt.node.guid")).matches(GUID);

        Bundle sim = felix.bundle(Felix.DRIVER_SIM);
        for (int restart = 0; restart < 3; restart++) {
            sim.stop();
            awaitDeviceNames();
            sim.start();
            awaitDeviceNames("sim0", "sim1");
        }
    }

    @Test
    void aNamedHcaIsNamedByItsConfigurationAndATakenNameIsRefused() throws Exception {
        hca(props("name", "lab-a", "fabric", "it"));
        awaitDeviceNames("lab-a");
        hca(props("name", "lab-a", "fabric", "it"));
        hca(props("fabric", "it"));
        awaitDeviceNames("lab-a", "sim0");
        assertThat(felix.references(Felix.DEVICE, null)).as("the second lab-a got no device").hasSize(2);
    }

    // ------------------------------------------------------------------ @Modified

    @Test
    void aConfigurationAppliedAgainOrChangedLiveKeepsItsDeviceAndAFixedPropertyRecreatesIt() throws Exception {
        Dictionary<String, Object> p = props("name", "hca-m", "fabric", "it", "loss", 0.0);
        Configuration c = hca(p);
        awaitDeviceNames("hca-m");
        Object serviceId = device("hca-m").getProperty("service.id");
        List<String> removed = new CopyOnWriteArrayList<>();
        ServiceListener listener = e -> {
            if (e.getType() == ServiceEvent.UNREGISTERING) {
                removed.add((String) e.getServiceReference().getProperty("rvt.device.name"));
            }
        };
        felix.context().addServiceListener(listener, "(objectClass=" + Felix.DEVICE + ")");
        try {
            c.update(props("name", "hca-m", "fabric", "it", "loss", 0.0)); // what fileinstall does at start
            c.update(props("name", "hca-m", "fabric", "it", "loss", 0.125));
            // Config Admin delivers in order: once the loss is in effect, the update before it was handled too
            Poll.until("the new loss on the HCA's link", () -> linkLoss("hca-m") == 0.125);
            assertThat(device("hca-m").getProperty("service.id")).as("the same device service").isEqualTo(serviceId);
            assertThat(removed).as("devices removed by the same values and a live change").isEmpty();

            c.update(props("name", "hca-m", "fabric", "it", "loss", 0.125, "ports", 2));
            Poll.until("a device with two ports", () -> !felix.references(Felix.DEVICE, "(rvt.ports=2)").isEmpty());
            assertThat(removed).as("the one-port device went first").containsExactly("hca-m");
            assertThat(deviceNames()).containsExactly("hca-m");
            assertThat(device("hca-m").getProperty("service.id")).isNotEqualTo(serviceId);
            assertThat(linkLoss("hca-m")).as("the new HCA has the configuration's loss").isEqualTo(0.125);
        } finally {
            felix.context().removeServiceListener(listener);
        }
    }

    // ------------------------------------------------------------------ shell

    @Test
    void theRvtCommandsPrintInABatchSessionAndReturnNothing() throws Exception {
        Bundle gogo = felix.install("org.apache.felix.gogo.runtime");
        gogo.start();
        hca(props("fabric", "it"));
        hca(props("name", "hca-b", "fabric", "it"));
        awaitDeviceNames("sim0", "hca-b");
        Poll.until("the rvt commands in Gogo", () -> !felix.references(Object.class.getName(),
                "(osgi.command.scope=rvt)").isEmpty());

        String devices = runInSession(gogo, "rvt:devices");
        assertThat(devices).contains("sim0", "hca-b", "sim%d").containsPattern("sim0 +" + GUID + " +sim%d +1");
        assertThat(runInSession(gogo, "rvt:ports")).contains("sim0", "hca-b", "ACTIVE");
        assertThat(runInSession(gogo, "rvt:stat sim0")).startsWith("sim0");
        assertThat(runInSession(gogo, "rvt:qps")).contains("qpn");
    }
}
