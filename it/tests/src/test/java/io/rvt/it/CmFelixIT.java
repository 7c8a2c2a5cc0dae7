package io.rvt.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;

/**
 * rvt-cm in Felix with SCR: its component registers a ConnectionManager service for every device service (with the
 * device's name), drops it when the device goes, and leaves nothing behind when the bundle stops.
 */
class CmFelixIT extends FelixTest {
    private static final String CM = "io.rvt.cm.ConnectionManager";

    @Override
    List<String> driverThreads() {
        return Threads.named(n -> n.startsWith(Threads.DRIVER_SIM_PREFIX) || n.startsWith("rvt-cm"));
    }

    private Configuration hca(String name) throws Exception {
        Configuration c = felix.configurationAdmin().createFactoryConfiguration("io.rvt.driver.sim", "?");
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("name", name);
        props.put("fabric", "cm-it");
        c.update(props);
        return c;
    }

    private TreeSet<String> cmDevices() {
        TreeSet<String> out = new TreeSet<>();
        for (ServiceReference<?> r : felix.references(CM, null)) {
            out.add((String) r.getProperty("rvt.device.name"));
        }
        return out;
    }

    private TreeSet<String> deviceNames() {
        TreeSet<String> out = new TreeSet<>();
        for (ServiceReference<?> r : felix.references(Felix.DEVICE, null)) {
            out.add((String) r.getProperty("rvt.device.name"));
        }
        return out;
    }

    @Test
    void aConnectionManagerServiceFollowsEveryDeviceService() throws Exception {
        Bundle cm = felix.install("rvt-cm");
        cm.start();
        assertThat(cm.getState()).isEqualTo(Bundle.ACTIVE);
        Configuration a = hca("cm-a");
        hca("cm-b");
        Poll.until("two devices", () -> deviceNames().size() == 2, this::deviceNames);
        Poll.until("a CM per device", () -> cmDevices().equals(deviceNames()), this::cmDevices);
        for (ServiceReference<?> r : felix.references(CM, null)) {
            assertThat(r.getBundle()).isSameAs(cm);
        }

        a.delete();
        Poll.until("one device", () -> deviceNames().size() == 1, this::deviceNames);
        Poll.until("the CM of the removed device goes", () -> cmDevices().equals(deviceNames()), this::cmDevices);

        cm.stop();
        assertThat(felix.references(CM, null)).isEmpty();
        cm.start();
        Poll.until("the CM comes back", () -> cmDevices().equals(deviceNames()), this::cmDevices);
    }
}
