package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.PortAttr;
import io.rvt.api.PathMtu;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.core.RvtDevice;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/** The Declarative Services component: built from its configuration, validated, registered like a builder-made one. */
class JniDriverComponentTest {
    /** Every device the fake rvt-core made, in order; the live ones are those not yet unregistered. */
    private final List<RvtDevice> devices = new ArrayList<>();
    private final List<JniDriverComponent> components = new ArrayList<>();
    /** A bundle context whose driver services become devices, and whose withdrawn ones are removed, as rvt-core does. */
    private final BundleContext context = mock(BundleContext.class);

    {
        when(context.registerService(eq(RvtDriver.class), any(RvtDriver.class), any())).thenAnswer(inv -> {
            RvtDevice dev = RvtDevice.register(inv.getArgument(1));
            devices.add(dev);
            @SuppressWarnings("unchecked")
            ServiceRegistration<RvtDriver> r = mock(ServiceRegistration.class);
            org.mockito.Mockito.doAnswer(u -> {
                dev.unregister();
                return null;
            }).when(r).unregister();
            return r;
        });
    }

    @AfterEach
    void tearDown() {
        components.forEach(JniDriverComponent::deactivate);
        devices.forEach(RvtDevice::unregister);
    }

    private JniDriverComponent activate(JniDriverComponent.Config c) {
        JniDriverComponent comp = new JniDriverComponent(context, c);
        components.add(comp);
        return comp;
    }

    /** @return a configuration on 127.0.0.1 with an ephemeral UDP port, named {@code name} unless it is null */
    private static Map<String, Object> loopback(String name) {
        Map<String, Object> v = new HashMap<>();
        if (name != null) {
            v.put("name", name);
        }
        v.put("address", "127.0.0.1");
        v.put("udp_port", 0);
        return v;
    }

    private RvtDevice lastDevice() {
        return devices.get(devices.size() - 1);
    }
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
        Map<String, Object> v = loopback("ds0");
        v.put("mtu", 1024);
        v.put("peers", new String[] {"10.0.0.2=4792", "", "::ffff:10.0.0.3 = 4793"}); // "": a console's empty list
        JniDriver c = activate(config(v)).driver();
        Device dev = lastDevice();
        assertThat(dev.name()).as("the name the configuration gives").isEqualTo("ds0");
        assertThat(dev.queryPort(1, new PortAttr()).activeMtu()).isEqualTo(PathMtu.MTU_1024);
        assertThat(dev.queryGid(1, 0)).isEqualTo(c.gid(1));
        assertThat(c.localPort(1)).isPositive();
        assertThat(c.sourcePorts()).isEqualTo(JniDriverBuilder.DEFAULT_SOURCE_PORTS);
    }

    @Test
    void shouldRunThePortEnginesAsThreadingSaysWhenConfigured() {
        assertThat(activate(config(loopback("ds-progress"))).driver().threading()).as("the default")
                .isEqualTo(ThreadingMode.PROGRESS);
        Map<String, Object> v = loopback("ds-dedicated");
        v.put("threading", "Dedicated");
        assertThat(activate(config(v)).driver().threading()).isEqualTo(ThreadingMode.DEDICATED);
    }

    @Test
    void shouldTurnUdpGsoOffWhenConfigured() {
        assertThat(JniDriverComponent.toBuilder(config(loopback("ds-gso"))).udpGso).as("the default").isTrue();
        Map<String, Object> v = loopback("ds-no-gso");
        v.put("udp_gso", false);
        assertThat(JniDriverComponent.toBuilder(config(v)).udpGso).isFalse();
    }

    @Test
    void shouldRefuseAThreadingThatNoOneCouldRunWhenConfigured() {
        Map<String, Object> v = loopback("ds-invoker");
        v.put("threading", "invoker");
        assertThatThrownBy(() -> activate(config(v))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("threading must be progress or dedicated, got 'invoker'");
        assertThat(devices).as("nothing registered").isEmpty();
    }

    @Test
    void shouldNameAnUnnamedHcaRoceAndTheLowestFreeIndex() {
        activate(config(loopback(null)));
        assertThat(lastDevice().name()).matches("roce[0-9]+");
        assertThat(lastDevice().driverName()).isEqualTo(JniDriverBuilder.DEFAULT_NAME);
    }

    @Test
    void shouldChangePeersLiveAndKeepTheDeviceWhenTheConfigurationIsAppliedAgain() {
        Map<String, Object> v = loopback("ds-live");
        v.put("peers", new String[] {"10.0.0.2=4792", "10.0.0.3=4793"});
        JniDriverComponent comp = activate(config(v));
        JniDriver before = comp.driver();
        RvtDevice dev = lastDevice();

        comp.modified(config(new HashMap<>(v)));
        assertThat(comp.driver()).as("same values: the same driver").isSameAs(before);

        v.put("peers", new String[] {"10.0.0.2=4800", "10.0.0.4=4794"});
        comp.modified(config(new HashMap<>(v)));
        assertThat(comp.driver()).as("peers change live").isSameAs(before);
        assertThat(dev.isAlive()).isTrue();
        assertThat(devices).hasSize(1);
        assertThat(before.peerPort(gid("10.0.0.2"))).isEqualTo(4800);
        assertThat(before.peerPort(gid("10.0.0.4"))).isEqualTo(4794);
        assertThat(before.peerPort(gid("10.0.0.3"))).as("removed: the default port again")
                .isEqualTo(JniDriver.ROCEV2_PORT);
    }

    @Test
    void shouldRecreateTheDeviceWhenAFixedPropertyChanges() {
        Map<String, Object> v = loopback("ds-new");
        JniDriverComponent comp = activate(config(v));
        JniDriver before = comp.driver();
        RvtDevice old = lastDevice();

        v.put("mtu", 2048);
        comp.modified(config(v));

        assertThat(comp.driver()).isNotSameAs(before);
        assertThat(old.isAlive()).as("the old device went first").isFalse();
        assertThat(lastDevice().name()).isEqualTo("ds-new");
        assertThat(lastDevice().queryPort(1, new PortAttr()).activeMtu()).isEqualTo(PathMtu.MTU_2048);
    }

    private static Gid gid(String ip) {
        try {
            return Peer.gidOf(java.net.InetAddress.getByName(ip));
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void shouldNameBadPropertyWhenConfigurationIsWrong() {
        Map<String, Object> v = loopback(null);
        v.put("mtu", 1500);
        assertThatThrownBy(() -> new JniDriverComponent(context, config(v))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mtu").hasMessageContaining("1500");
        v.put("mtu", 4096);
        v.put("peers", new String[] {"10.0.0.2"});
        assertThatThrownBy(() -> new JniDriverComponent(context, config(v))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gid-or-ip=udpport").hasMessageContaining("10.0.0.2");
        v.put("peers", new String[] {"10.0.0.2=port"});
        assertThatThrownBy(() -> new JniDriverComponent(context, config(v))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("10.0.0.2=port");
        v.remove("peers");
        v.put("source_ports", 0);
        assertThatThrownBy(() -> new JniDriverComponent(context, config(v))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("source.ports").hasMessageContaining("got 0");
        v.put("source_ports", 4);
        assertThat(activate(config(v)).driver().sourcePorts()).isEqualTo(4);
    }
}
