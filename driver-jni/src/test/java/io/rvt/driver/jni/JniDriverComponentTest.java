package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Device;
import io.rvt.api.PortAttr;
import io.rvt.api.PathMtu;
import io.rvt.core.RvtDevice;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Declarative Services component: built from its configuration, validated, registered like a builder-made one. */
class JniDriverComponentTest {
    /** A configuration as SCR makes it: an annotation instance answering from a map, else the defaults. */
    private static JniDriverComponent.Config config(Map<String, Object> values) {
        return (JniDriverComponent.Config) Proxy.newProxyInstance(JniDriverComponent.Config.class.getClassLoader(),
                new Class<?>[] {JniDriverComponent.Config.class}, (proxy, m, args) -> {
                    if (values.containsKey(m.getName())) {
                        return values.get(m.getName());
                    }
                    return m.getDefaultValue();
                });
    }

    @Test
    void shouldRegisterDeviceWhenConfigured() {
        Map<String, Object> v = new HashMap<>();
        v.put("name", "ds0");
        v.put("address", "127.0.0.1");
        v.put("udp_port", 0);
        v.put("mtu", 1024);
        v.put("peers", new String[] {"10.0.0.2=4792", "", "::ffff:10.0.0.3 = 4793"}); // "": a console's empty list
        JniDriverComponent c = new JniDriverComponent(config(v));
        Device dev = RvtDevice.register(c);
        try {
            assertThat(dev.name()).as("rvt-core names it rvt_<driver name><n>").startsWith("rvt_ds0");
            assertThat(dev.queryPort(1, new PortAttr()).activeMtu()).isEqualTo(PathMtu.MTU_1024);
            assertThat(dev.queryGid(1, 0)).isEqualTo(c.gid(1));
            assertThat(c.localPort(1)).isPositive();
            assertThat(c.sourcePorts()).isEqualTo(JniDriver.Builder.DEFAULT_SOURCE_PORTS);
        } finally {
            ((RvtDevice) dev).unregister();
            c.deactivate();
        }
    }

    @Test
    void shouldNameBadPropertyWhenConfigurationIsWrong() {
        Map<String, Object> v = new HashMap<>();
        v.put("address", "127.0.0.1");
        v.put("udp_port", 0);
        v.put("mtu", 1500);
        assertThatThrownBy(() -> new JniDriverComponent(config(v))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mtu").hasMessageContaining("1500");
        v.put("mtu", 4096);
        v.put("peers", new String[] {"10.0.0.2"});
        assertThatThrownBy(() -> new JniDriverComponent(config(v))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gid-or-ip=udpport").hasMessageContaining("10.0.0.2");
        v.put("peers", new String[] {"10.0.0.2=port"});
        assertThatThrownBy(() -> new JniDriverComponent(config(v))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("10.0.0.2=port");
        v.remove("peers");
        v.put("source_ports", 0);
        assertThatThrownBy(() -> new JniDriverComponent(config(v))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("source.ports").hasMessageContaining("got 0");
        v.put("source_ports", 4);
        JniDriverComponent four = new JniDriverComponent(config(v));
        try {
            assertThat(four.sourcePorts()).isEqualTo(4);
        } finally {
            four.deactivate();
        }
    }
}
