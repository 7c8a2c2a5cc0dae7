package io.rvt.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Device;
import io.rvt.api.DeviceRegistry;
import io.rvt.api.Errno;
import io.rvt.api.VerbsException;
import io.rvt.api.Rvt;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverRegistry;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.TimerService;
import io.rvt.core.timer.SystemTimerService;
import java.util.List;
import org.junit.jupiter.api.Test;

class RvtDeviceRegistryTest {
    @Test
    void shouldRegisterGoodDriversAndReportRefusedOnesWhenDiscovering() {
        RvtDriver good = new TestDriver();
        RvtDriver broken = new TestDriver().without(Callback.GET_GUID_BE);
        try (RvtDeviceRegistry registry = new RvtDeviceRegistry(List.of(good, broken))) {
            assertThat(registry.devices()).as("nothing before discover()").isEmpty();
            List<Device> added = registry.discover();
            assertThat(added).hasSize(1);
            assertThat(registry.devices()).isEqualTo(added);
            Device d = registry.devices().get(0);
            assertThat(registry.device(d.name())).contains(d);
            assertThat(registry.device("no-such-device")).isEmpty();
            assertThat(registry.refused()).singleElement().asString().contains("getGuidBe");
            assertThat(d.isAlive()).isTrue();
            registry.close();
            assertThat(d.isAlive()).as("close removes the devices").isFalse();
            assertThat(registry.devices()).isEmpty();
        }
    }

    @Test
    void shouldNameDevicesByPatternAndLowestFreeIndexAndReuseAFreedIndex() {
        try (RvtDeviceRegistry registry = new RvtDeviceRegistry(List.of())) {
            Device a = registry.register(new TestDriver().name("namesreg%d"));
            Device b = registry.register(new TestDriver().name("namesreg%d"));
            assertThat(List.of(a.name(), b.name())).containsExactly("namesreg0", "namesreg1");
            assertThat(a.driverName()).isEqualTo("namesreg%d");
            assertThat(registry.device("namesreg1")).contains(b);
            registry.remove(a);
            Device c = registry.register(new TestDriver().name("namesreg%d"));
            assertThat(c.name()).as("the index namesreg0 had is free again, as a restarted configuration expects")
                    .isEqualTo("namesreg0");
        }
    }

    @Test
    void shouldRefuseAFixedNameAnotherDeviceHasWithEnfileAndRegisterNothing() {
        try (RvtDeviceRegistry registry = new RvtDeviceRegistry(List.of())) {
            Device kept = registry.register(new TestDriver().name("names-fixed"));
            TestDriver second = new TestDriver().name("names-fixed");
            assertThatThrownBy(() -> registry.register(second)).isInstanceOfSatisfying(VerbsException.class, e -> {
                assertThat(e.errno()).isEqualTo(Errno.ENFILE);
                assertThat(e.getMessage()).contains("'names-fixed'");
            });
            assertThat(registry.devices()).containsExactly(kept);
            registry.remove(kept);
            assertThat(registry.register(second).name()).as("free once the other device is gone")
                    .isEqualTo("names-fixed");
        }
    }

    @Test
    void shouldFindNoDriverWhenNoneIsOnThePath() {
        try (RvtDeviceRegistry registry = new RvtDeviceRegistry()) {
            // rvt-core's own tests have no META-INF/services entry for a driver
            assertThat(registry.discover()).isEmpty();
            assertThat(registry.refused()).isEmpty();
        }
    }

    @Test
    void shouldRegisterAndRemoveADriverTheCallerMade() {
        try (RvtDeviceRegistry registry = new RvtDeviceRegistry(List.of())) {
            Device d = registry.register(new TestDriver());
            assertThat(registry.devices()).containsExactly(d);
            assertThat(registry.remove(d)).isTrue();
            assertThat(d.isAlive()).isFalse();
            assertThat(registry.devices()).isEmpty();
            assertThat(registry.remove(d)).as("second remove").isFalse();
        }
    }

    @Test
    void shouldRefuseABrokenDriverWithEinvalAndLeaveTheRegistryAsItWas() {
        try (RvtDeviceRegistry registry = new RvtDeviceRegistry(List.of())) {
            Device kept = registry.register(new TestDriver());
            assertThatThrownBy(() -> registry.register(new TestDriver().without(Callback.GET_GUID_BE)))
                    .isInstanceOf(VerbsException.class).hasMessageContaining("getGuidBe")
                    .extracting(e -> ((VerbsException) e).errno()).isEqualTo(Errno.EINVAL);
            assertThat(registry.devices()).containsExactly(kept);
            assertThat(registry.refused()).as("only discovery records refusals").isEmpty();
        }
    }

    @Test
    void shouldRegisterThroughTheSpiRegistryAndGiveTheDevicesClockThroughTheSpi() {
        SystemTimerService driversClock = new SystemTimerService("clockreg");
        try (DriverRegistry registry = DriverRegistry.create()) {
            assertThat(registry).as("rvt-core's registry, found by ServiceLoader").isInstanceOf(RvtDeviceRegistry.class);
            Device own = registry.register(new TestDriver().timerService(driversClock));
            Device plain = registry.register(new TestDriver());
            assertThat(registry.devices()).containsExactly(own, plain);
            assertThat(TimerService.of(own)).as("the driver's clock").isSameAs(driversClock);
            assertThat(TimerService.of(plain)).as("rvt-core's real-time clock").isNotNull().isNotSameAs(driversClock)
                    .isSameAs(TimerService.of(plain));
        } finally {
            driversClock.close();
        }
        try (DeviceRegistry plainApi = Rvt.create()) {
            assertThat(plainApi).as("the verbs API's registry is the same kind").isInstanceOf(DriverRegistry.class);
        }
    }

    @Test
    void shouldRefuseTheClockOfADeviceRvtCoreDidNotMake() {
        Device foreign = (Device) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Device.class}, (proxy, m, args) -> m.getName().equals("toString") ? "foreign0" : null);
        assertThatThrownBy(() -> TimerService.of(foreign)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a device of rvt-core, so no timer service: foreign0 (" + foreign.getClass().getName()
                        + ")");
        assertThatThrownBy(() -> TimerService.of(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a device of rvt-core, so no timer service: null");
    }
}
