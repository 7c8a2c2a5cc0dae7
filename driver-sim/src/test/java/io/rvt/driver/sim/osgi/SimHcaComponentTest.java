package io.rvt.driver.sim.osgi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.rvt.api.Device;
import io.rvt.api.spi.RvtDriver;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.RealTimeTraffic;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.DropCause;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.LinkModel;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.mockito.ArgumentCaptor;
import org.mockito.Mock;
import org.mockito.junit.jupiter.MockitoExtension;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/** The DS component on its own: what it registers, how it shares fabrics, and that it leaves no thread behind. */
@ExtendWith(MockitoExtension.class)
@Timeout(60)
class SimHcaComponentTest {
    @Mock
    BundleContext context;
    @Mock
    ServiceRegistration<RvtDriver> registration;

    final SimFabrics fabrics = new SimFabrics();
    final List<SimHcaComponent> components = new ArrayList<>();
    final List<RvtDevice> devices = new ArrayList<>();

    @BeforeEach
    void setUp() {
        org.mockito.Mockito.lenient().when(context.registerService(eq(RvtDriver.class), any(RvtDriver.class), any()))
                .thenReturn(registration);
    }

    @AfterEach
    void tearDown() {
        devices.forEach(RvtDevice::unregister);
        components.forEach(SimHcaComponent::deactivate);
        fabrics.deactivate();
    }

    /** A configuration: the annotation's defaults, overridden by {@code props} (DS names: latency_ns). */
    static SimHcaConfig config(Object... props) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < props.length; i += 2) {
            m.put(((String) props[i]).replace("_", "__"), props[i + 1]);
        }
        return (SimHcaConfig) Proxy.newProxyInstance(SimHcaConfig.class.getClassLoader(),
                new Class<?>[] {SimHcaConfig.class}, (proxy, method, args) -> {
                    if (method.getName().equals("annotationType")) {
                        return SimHcaConfig.class;
                    }
                    Object v = m.get(method.getName());
                    return v != null ? v : method.getDefaultValue();
                });
    }

    private Device activate(SimHcaConfig c) {
        SimHcaComponent comp = new SimHcaComponent(context, c, fabrics);
        components.add(comp);
        RvtDevice d = RvtDevice.register(comp.driver());
        devices.add(d);
        return d;
    }

    private static long threadsNamedAfter(String fabric) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().contains(fabric)).count();
    }

    @Test
    void shouldRegisterTheHcaAsADriverServiceAndShareTheFabricByName() {
        Device a = activate(config("name", "hca-a", "fabric", "osgi-dedicated"));
        Device b = activate(config("name", "hca-b", "fabric", "osgi-dedicated", "loss", 0.0));

        @SuppressWarnings("unchecked")
        ArgumentCaptor<Dictionary<String, Object>> props = ArgumentCaptor.forClass(Dictionary.class);
        verify(context, org.mockito.Mockito.times(2)).registerService(eq(RvtDriver.class), any(RvtDriver.class),
                props.capture());
        assertThat(props.getAllValues().get(0).get("rvt.driver.name")).isEqualTo("hca-a");
        assertThat(props.getAllValues().get(0).get(SimHcaComponent.PROP_FABRIC)).isEqualTo("osgi-dedicated");
        assertThat(fabrics.names()).containsExactly("osgi-dedicated");
        assertThat(Fabric.find("osgi-dedicated").orElseThrow().ports()).hasSize(2);

        new RealTimeTraffic().sendChecked(a, b, 20);
    }

    @Test
    void shouldRunFabricAndSendEnginesOnOneThreadInSharedThreadingAndStopItWithTheLastHca() {
        Device a = activate(config("name", "s-a", "fabric", "osgi-shared", "threading", "shared"));
        Device b = activate(config("name", "s-b", "fabric", "osgi-shared", "threading", "shared"));
        assertThat(threadsNamedAfter("osgi-shared")).as("one shared thread").isEqualTo(1);
        new RealTimeTraffic().sendChecked(a, b, 20);

        devices.forEach(RvtDevice::unregister);
        devices.clear();
        components.get(0).deactivate();
        assertThat(Fabric.find("osgi-shared")).as("still used by s-b").isPresent();
        components.get(1).deactivate();
        components.clear();
        assertThat(Fabric.find("osgi-shared")).isEmpty();
        assertThat(threadsNamedAfter("osgi-shared")).isZero();
        verify(registration, org.mockito.Mockito.times(2)).unregister();
    }

    @Test
    void shouldStopEveryThreadOfADedicatedFabricWhenItsHcasGo() {
        activate(config("name", "d-a", "fabric", "osgi-threads"));
        activate(config("name", "d-b", "fabric", "osgi-threads"));
        assertThat(threadsNamedAfter("osgi-threads")).isPositive();
        devices.forEach(RvtDevice::unregister);
        devices.clear();
        components.forEach(SimHcaComponent::deactivate);
        components.clear();
        assertThat(Fabric.find("osgi-threads")).isEmpty();
        assertThat(threadsNamedAfter("osgi-threads")).isZero();
        assertThat(threadsNamedAfter("d-a")).isZero();
    }

    @Test
    void shouldApplyLinkFaultsFromTheConfiguration() {
        Device a = activate(config("name", "f-a", "fabric", "osgi-faults", "loss", 0.05, "seed", 7L));
        Device b = activate(config("name", "f-b", "fabric", "osgi-faults", "loss", 0.05, "seed", 7L));
        new RealTimeTraffic().sendChecked(a, b, 200);
        assertThat(Fabric.find("osgi-faults").orElseThrow().counters().drops(DropCause.LOSS))
                .as("frames lost on the way, yet every message arrived").isPositive();
    }

    @Test
    void shouldRefuseABadConfigurationNamingTheValueAndReleaseTheFabric() {
        assertThatThrownBy(() -> activate(config("name", "bad", "fabric", "osgi-bad", "mtu", 1000)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 1000");
        assertThatThrownBy(() -> activate(config("name", "bad", "fabric", "osgi-bad2", "threading", "fast")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'fast'");
        assertThat(fabrics.names()).isEmpty();
        assertThat(Fabric.find("osgi-bad")).isEmpty();
    }

    @Test
    void shouldNameUnnamedHcasSimAndTheLowestFreeIndexWhenTheConfigurationGivesNoName() {
        Device a = activate(config("fabric", "osgi-unnamed"));
        Device b = activate(config("fabric", "osgi-unnamed"));
        assertThat(components.get(0).driver().name()).isEqualTo(SimDriver.DEFAULT_NAME);
        assertThat(a.name()).matches("sim[0-9]+");
        assertThat(b.name()).matches("sim[0-9]+").isNotEqualTo(a.name());
        devices.remove(a);
        ((RvtDevice) a).unregister();
        Device c = activate(config("fabric", "osgi-unnamed"));
        assertThat(c.name()).as("a configuration applied again gets the name it had, not a counter's next")
                .isEqualTo(a.name());
    }

    @Test
    void shouldKeepTheDeviceWhenTheSameConfigurationIsAppliedAgain() {
        SimHcaConfig c = config("name", "mod-same", "fabric", "osgi-modified", "loss", 0.01);
        Device dev = activate(c);
        SimDriver before = components.get(0).driver();

        components.get(0).modified(config("name", "mod-same", "fabric", "osgi-modified", "loss", 0.01));

        assertThat(components.get(0).driver()).as("no new HCA").isSameAs(before);
        assertThat(dev.isAlive()).isTrue();
        verify(registration, org.mockito.Mockito.never()).unregister();
        verify(context, org.mockito.Mockito.times(1)).registerService(eq(RvtDriver.class), any(RvtDriver.class),
                any());
    }

    @Test
    void shouldApplyLinkPropertiesLiveWithoutANewDevice() {
        Device dev = activate(config("name", "mod-live", "fabric", "osgi-live", "ports", 2));
        SimDriver before = components.get(0).driver();

        components.get(0).modified(config("name", "mod-live", "fabric", "osgi-live", "ports", 2, "loss", 0.25,
                "corruption", 0.5, "latency_ns", 1500L, "bandwidth_gbps", 10.0));

        assertThat(components.get(0).driver()).isSameAs(before);
        assertThat(dev.isAlive()).isTrue();
        for (int p = 1; p <= 2; p++) {
            assertThat(before.fabricPort(p).link().faults().loss()).as("port %d loss", p).isEqualTo(0.25);
            assertThat(before.fabricPort(p).link().faults().corruption()).isEqualTo(0.5);
            assertThat(before.fabricPort(p).link().model()).isEqualTo(LinkModel.of(10_000_000_000L, 1500));
        }
        components.get(0).modified(config("name", "mod-live", "fabric", "osgi-live", "ports", 2));
        assertThat(before.fabricPort(1).link().faults().loss()).isZero();
        assertThat(before.fabricPort(1).link().model()).isEqualTo(LinkModel.IDEAL);
        verify(registration, org.mockito.Mockito.never()).unregister();
    }

    @Test
    void shouldRecreateTheDeviceWhenAPropertyThatCannotChangeLiveChanges() {
        Device old = activate(config("name", "mod-new", "fabric", "osgi-recreate"));
        SimDriver before = components.get(0).driver();
        // what rvt-core does when the driver service goes: remove the device
        org.mockito.Mockito.doAnswer(inv -> {
            ((RvtDevice) old).unregister();
            return null;
        }).when(registration).unregister();

        components.get(0).modified(config("name", "mod-new", "fabric", "osgi-recreate", "ports", 2));

        SimDriver after = components.get(0).driver();
        assertThat(after).isNotSameAs(before);
        assertThat(old.isAlive()).as("the old device was removed first").isFalse();
        assertThat(after.params().nports()).isEqualTo(2);
        devices.add(RvtDevice.register(after));
        assertThat(devices.get(devices.size() - 1).name()).as("same configuration name, same device name")
                .isEqualTo("mod-new");
        assertThat(Fabric.find("osgi-recreate").orElseThrow().ports()).as("the old HCA's port is gone").hasSize(2);
    }
}
